import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import { publicResult, RETRIEVAL_ERRORS, type CodeSearch, type SearchOutcome } from './code-search.js';
import type { TraceStore } from '../traces/trace-store.js';
import { httpError } from '../../../platform/http/error-catalogue.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';
import { isPlainQuery, parseSearchQuery } from '../query/search-query.js';
import type { QuerySearch } from '../query/query-search.js';


const SearchQuery = z.object({
  q: z
    .string({ error: 'q is required' })
    .refine((v) => v.trim().length > 0, 'q cannot be empty')
    .refine((v) => v.length <= 1000, 'q is longer than 1000 characters')
    .describe(
      'Query text. Bare words: the ranked search (a question in plain English or an identifier). The query language adds "a phrase", /a regex/, ' +
        'repo:, file: (or path:), lang:, sym:, case:yes|no|auto, rev:, and -word / -file: to exclude (docs/search/code-search.md "Query language"). ' +
        'A query with a phrase or regex is an exact search over the code index; with no repo (parameter or repo:) a query-language search reaches every repository.',
    ),
  repo: z.string().optional().describe('Repository name (a key of REPOS); defaults to REPO.'),
  top_k: z
    .string()
    .regex(/^\s*\d+\s*$/, 'top_k must be an integer from 1 to 100')
    .transform((v) => Number(v))
    .refine((n) => n >= 1 && n <= 100, 'top_k must be an integer from 1 to 100')
    .optional()
    .describe('Results to return, 1..100; defaults to FINAL_K.'),
  trace: z
    .enum(['true', 'false', '1', '0'], { error: 'trace must be true or false' })
    .transform((v) => v === 'true' || v === '1')
    .optional()
    .describe('true: write this search as a trace under DATA_DIR/out/<repo>/traces/ (TRACE_RETENTION newest kept) and name it in the answer.'),
});

export const SearchResultBody = z.object({
  score: z.number(),
  path: z.string().describe('Relative to the repository root.'),
  start_line: z.number().int().describe('1-based, inclusive.'),
  end_line: z.number().int().describe('1-based, inclusive.'),
  snippet: z.string(),
  enrichment: z.string().optional().describe('With ENRICH_CODE_CHUNKS: the LLM\'s summary and keywords of the chunk, indexed as their own field.'),
  run_id: z.string().optional().describe('The index run that wrote this chunk.'),
  indexed_at: z.string().optional().describe('When that run read the file (ISO 8601).'),
  stale: z.boolean().optional().describe('true: the file changed (size or mtime) or was removed since it was indexed, so the snippet may be out of date; reindex with POST /api/index/start.'),
  repo: z.string().optional().describe('Query-language searches: the repository of the result.'),
  language: z.string().optional().describe('Exact and symbol searches: the file\'s language.'),
  match_count: z.number().int().optional().describe('Exact searches: occurrences of the patterns in the file (counted up to 1,000 per pattern).'),
  matches: z
    .array(z.object({
      line: z.number().int().describe('1-based.'),
      column: z.number().int().describe('1-based, in characters.'),
      byte_offset: z.number().int().describe('0-based offset of the match in the file, in UTF-8 bytes.'),
      byte_length: z.number().int(),
      text: z.string().describe('The line (at most 300 characters).'),
    }))
    .optional()
    .describe('Exact searches: the first 20 matches, by line.'),
  symbol: z.object({ name: z.string(), kind: z.string(), container: z.string().nullable() }).optional().describe('sym: searches: the definition.'),
});

export const SearchResponseBody = z.object({
  query: z.string(),
  repo: z.string(),
  top_k: z.number().int().describe('The resolved value (top_k, else FINAL_K).'),
  results: z.array(SearchResultBody),
  trace: z.string().optional().describe('With trace=true: the trace file written, relative to DATA_DIR (out/<repo>/traces/<name> is DATA_DIR/out/<repo>/traces/<name>).'),
  mode: z.enum(['ranked', 'exact', 'symbols']).optional().describe('Query-language searches: how the query was answered (ranked words, exact phrases/regexes, symbol definitions).'),
  repos: z.array(z.object({ repo: z.string(), results: z.number().int(), best_score: z.number() })).optional().describe('Query-language searches: the results per repository, best first. `repo` is "*" when more than one was searched.'),
  partial: z.boolean().optional().describe('true: the exact search\'s time budget ended before every candidate file was read.'),
});

/** GET /api/search: retrieval only, no LLM call (an embedding call when EMBEDDING_MODEL is set). */
export function registerSearchRoutes(
  api: HttpApi,
  deps: { search: CodeSearch; traces?: TraceStore; repositories: RepositoryResolver; isDeleted?: (repo: string) => Promise<boolean>; querySearch?: QuerySearch },
): void {
  api.route(
    {
      method: 'get',
      path: '/api/search',
      summary: 'Search a repository\'s code',
      mcp: { name: 'search_code', hook: 'redact-credentials' },
      description:
        'Retrieval only. BM25 over code-aware terms (identifiers split and kept whole, path segments, symbol names), re-scored, ' +
        'fused with dense retrieval when EMBEDDING_MODEL is set; at most 3 chunks per file. top_k defaults to FINAL_K ' +
        '(LANGGRAPH_FINAL_K is the answer graph\'s). See docs/search/code-search.md.',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      query: SearchQuery,
      queryErrorStatus: 422,
      errors: ['repository_not_found', 'corpus_deleted', 'query_invalid', 'revision_not_indexed', 'code_index_missing', ...RETRIEVAL_ERRORS],
      responses: { 200: { description: 'Results, best first', schema: SearchResponseBody } },
    },
    async ({ query }) => {
      const parsed = parseSearchQuery(query.q);
      if (deps.querySearch && !isPlainQuery(parsed)) {
        const found = await deps.querySearch.run(parsed, query.repo, query.top_k ?? deps.search.defaultTopK());
        for (const repo of deps.querySearch.reposOf(parsed, query.repo)) {
          if (await deps.isDeleted?.(repo)) throw httpError('corpus_deleted', { corpus: repo, hint: 'index it again with POST /api/index/start' });
        }
        return { query: query.q, repo: found.repo, top_k: query.top_k ?? deps.search.defaultTopK(), results: found.results, mode: found.mode, repos: found.repos, ...(found.partial ? { partial: true } : {}) };
      }
      // Bare words: the ranked search of one repository, as it always was.
      const repo = deps.repositories.resolve(query.repo).name;
      // A deleted corpus has no current state: not an empty result list.
      if (await deps.isDeleted?.(repo)) throw httpError('corpus_deleted', { corpus: repo, hint: 'index it again with POST /api/index/start' });
      const outcome = await deps.search.search(query.q, repo, query.top_k);
      const trace = query.trace && deps.traces ? await traceSearch(deps.traces, outcome) : null;
      return { query: outcome.query, repo: outcome.repo, top_k: outcome.top_k, results: outcome.results.map(publicResult), ...(trace ? { trace } : {}) };
    },
  );
}

/** One search as a trace: the request, every hit with its per-signal scores, the timing. */
export async function traceSearch(traces: TraceStore, outcome: SearchOutcome): Promise<string | null> {
  const trace = traces.start(outcome.repo, outcome.query);
  trace.event('search.request', { repo: outcome.repo, top_k: outcome.top_k, dense: outcome.dense, ...(outcome.denseError ? { dense_error: outcome.denseError } : {}) });
  trace.event('search.hits', outcome.hits.map((h, i) => ({ rank: i + 1, path: h.metadata?.path ?? h.id, start_line: h.metadata?.start_line, end_line: h.metadata?.end_line, symbol: h.metadata?.symbol, score: h.score, signals: h.signals ?? {} })));
  trace.event('search.done', { results: outcome.results.length, ms: Math.round(outcome.ms * 100) / 100 });
  return trace.finish();
}
