import { publicResult, type CodeSearch, type SearchResult } from '../retrieval/code-search.js';
import type { Repositories } from '../repositories/repositories.js';
import type { CodeIndexes } from '../code-index/code-indexes.js';
import { exactSearch, pathAllowed, type LineMatch } from '../code-index/exact-search.js';
import { textMatcher } from '../code-index/text-matcher.js';
import { searchMode, type SearchMode, type SearchQuery } from './search-query.js';

/** A result of a query-language search: the spec's fields, and what exact and symbol searches add. */
export interface QueryResult extends Omit<SearchResult, 'stamp'> {
  repo: string;
  language?: string;
  match_count?: number;
  matches?: LineMatch[];
  symbol?: { name: string; kind: string; container: string | null };
}

export interface QueryOutcome {
  mode: SearchMode;
  repo: string;
  results: QueryResult[];
  /** Results per repository searched, in the order of their best result. */
  repos: Array<{ repo: string; results: number; best_score: number }>;
  /** The time budget ended the exact search before every candidate file was read. */
  partial: boolean;
}

/** Longest snippet of an exact or symbol result, as the ranked search's. */
const SNIPPET_CHARS = 1200;

/**
 * A query-language search (anything beyond bare words, docs/search/code-search.md): over the
 * repositories named by `repo` or `repo:`, every configured one otherwise; each repository
 * searched in the mode the query asks for, the results ranked across them and grouped.
 */
export class QuerySearch {
  constructor(private readonly deps: { repositories: Repositories; search: CodeSearch; codeIndexes: CodeIndexes; exactBudgetMs: () => number }) {}

  /** The repositories a query reaches: the `repo` parameter, else those `repo:` matches, else all. */
  reposOf(query: SearchQuery, repoParam: string | undefined): string[] {
    if (repoParam !== undefined) return [this.deps.repositories.resolve(repoParam).name];
    return this.deps.repositories
      .all()
      .map((r) => r.name)
      .filter((name) => query.repos.every((re) => re.test(name)) && !query.notRepos.some((re) => re.test(name)));
  }

  async run(query: SearchQuery, repoParam: string | undefined, topK: number): Promise<QueryOutcome> {
    const mode = searchMode(query);
    const repos = this.reposOf(query, repoParam);
    const results: QueryResult[] = [];
    let partial = false;
    for (const repo of repos) {
      if (mode === 'ranked') results.push(...(await this.ranked(query, repo, topK)));
      else {
        const reader = query.rev !== undefined || repos.length === 1 ? this.deps.codeIndexes.get(repo, query.rev) : this.deps.codeIndexes.find(repo);
        if (!reader) continue; // a repository never indexed has nothing to find across repositories
        if (mode === 'symbols') results.push(...this.symbols(query, repo, reader, topK));
        else {
          const found = exactSearch(reader, query, { maxFiles: topK, maxMatchesPerFile: 20, budgetMs: this.deps.exactBudgetMs() });
          partial ||= found.partial;
          for (const f of found.files) {
            const first = f.matches[0]!;
            const last = f.matches[f.matches.length - 1]!;
            results.push({ score: f.score, path: f.path, start_line: first.line, end_line: last.line, snippet: snippetOf(f.matches), repo, language: f.language, match_count: f.match_count, matches: f.matches });
          }
        }
      }
    }
    results.sort((a, b) => b.score - a.score || a.repo.localeCompare(b.repo) || a.path.localeCompare(b.path) || a.start_line - b.start_line);
    const top = results.slice(0, topK);
    const groups = new Map<string, { repo: string; results: number; best_score: number }>();
    for (const r of top) {
      const g = groups.get(r.repo) ?? { repo: r.repo, results: 0, best_score: r.score };
      g.results++;
      groups.set(r.repo, g);
    }
    return { mode, repo: repos.length === 1 ? repos[0]! : '*', results: top, repos: [...groups.values()], partial };
  }

  /** The ranked search of the words, filtered: lang: by the backend, paths and excluded terms here. */
  private async ranked(query: SearchQuery, repo: string, topK: number): Promise<QueryResult[]> {
    if (query.rev !== undefined) this.deps.codeIndexes.get(repo, query.rev); // 404 for a revision never indexed
    const filtered = query.files.length || query.notFiles.length || query.excluded.length || query.notLangs.length;
    // Filters applied after ranking need more candidates than asked for.
    const wanted = filtered ? Math.min(100, topK * 4) : topK;
    const outcome = await this.deps.search.search(query.words.join(' '), repo, wanted, { ...(query.langs.length ? { languages: query.langs } : {}), ...(query.rev !== undefined ? { rev: query.rev } : {}) });
    const excluded = query.excluded.map((p) => textMatcher(p, query.caseSensitive));
    const notLangs = new Set(query.notLangs);
    return outcome.hits
      .map((hit, i) => ({ hit, result: outcome.results[i] }))
      .filter(({ hit, result }) => result && pathAllowed(result.path, query) && !excluded.some((m) => m.find(hit.text, 1).length) && !notLangs.has(String(hit.metadata?.language)))
      .slice(0, topK)
      .map(({ result }) => ({ ...publicResult(result!), repo }));
  }

  private symbols(query: SearchQuery, repo: string, reader: NonNullable<ReturnType<CodeIndexes['find']>>, topK: number): QueryResult[] {
    const out: QueryResult[] = [];
    for (const name of query.symbols) {
      for (const s of reader.symbols(name, { exact: false, limit: topK * 4, languages: query.langs })) {
        if (!pathAllowed(s.path, query) || query.notLangs.includes(s.language)) continue;
        const score = s.name === name ? 3 : s.name.toLowerCase() === name.toLowerCase() ? 2.5 : s.name.toLowerCase().startsWith(name.toLowerCase()) ? 2 : 1;
        const content = reader.file(s.path)?.content ?? '';
        const lines = content.split('\n').slice(s.line - 1, s.end_line).join('\n');
        out.push({
          score, path: s.path, start_line: s.line, end_line: s.end_line,
          snippet: lines.length > SNIPPET_CHARS ? `${lines.slice(0, SNIPPET_CHARS)}…` : lines,
          repo, language: s.language, symbol: { name: s.name, kind: s.kind, container: s.container },
        });
      }
    }
    return out;
  }
}

function snippetOf(matches: LineMatch[]): string {
  const seen = new Set<number>();
  const lines = matches.filter((m) => !seen.has(m.line) && seen.add(m.line)).map((m) => m.text);
  const text = lines.join('\n');
  return text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text;
}
