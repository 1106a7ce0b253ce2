import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { Repositories } from '../repositories/repositories.js';
import type { CodeIndexes } from '../code-index/code-indexes.js';
import type { CodeIndexReader } from '../code-index/code-index-reader.js';
import { exactSearch } from '../code-index/exact-search.js';
import { parseSearchQuery, type SearchQuery } from '../query/search-query.js';
import { searchErrors } from '../search-errors.js';
import { repositoryPath, whyNotIndexed } from './repository-paths.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';

const Revision = z.object({
  repo: z.string().max(200).optional().describe('Repository name (a key of REPOS); REPO when absent.'),
  rev: z.string().max(200).optional().describe('A branch or tag of a git repository; its default branch (or the directory as indexed) when absent.'),
});
const Limit = z
  .string()
  .regex(/^\d{1,4}$/, 'limit must be an integer from 1 to 1000')
  .transform(Number)
  .refine((n) => n >= 1 && n <= 1000, 'limit must be an integer from 1 to 1000')
  .optional()
  .describe('At most this many, 1..1000 (default 100).');
const LineNumber = (name: string) => z.string().regex(/^\d{1,9}$/, `${name} must be a positive integer`).transform(Number).refine((n) => n >= 1, `${name} must be a positive integer`).optional();

const Symbol = z.object({
  name: z.string(),
  kind: z.string().describe('function, class, method, interface, type, struct, enum, ...'),
  container: z.string().nullable().describe('The enclosing definition (a method\'s class).'),
  path: z.string(),
  language: z.string(),
  line: z.number().int().describe('1-based line of the name.'),
  column: z.number().int().describe('1-based column of the name.'),
  end_line: z.number().int().describe('Last line of the definition.'),
});
const Reference = z.object({ path: z.string(), language: z.string(), line: z.number().int(), column: z.number().int(), text: z.string().describe('The line (at most 300 characters).') });
const Symbols = z.object({ repo: z.string(), rev: z.string().nullable(), symbols: z.array(Symbol) });

/** Longest whole file a read returns; a larger one is read by line range. */
const MAX_READ_BYTES = 512 * 1024;

export interface NavigationDeps {
  repositories: Repositories;
  codeIndexes: CodeIndexes;
  maxFileBytes: () => number;
}

/**
 * Navigation over a repository revision's code index: symbols, definitions, references, reading a
 * file or a line range, listing a directory, and grep. Each is an MCP tool too.
 */
export function registerNavigationRoutes(api: HttpApi, deps: NavigationDeps): void {
  const open = (input: { repo?: string | undefined; rev?: string | undefined }): { repo: string; rev: string | null; reader: CodeIndexReader; dir: string } => {
    const repo = deps.repositories.resolve(input.repo);
    return { repo: repo.name, rev: input.rev ?? null, reader: deps.codeIndexes.get(repo.name, input.rev), dir: repo.dir };
  };
  const common = { tags: ['code-search'], access: { scope: 'search:read' } as const, queryErrorStatus: 422 as const, errors: ['repository_not_found', 'revision_not_indexed', 'code_index_missing'] };

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/symbols',
      summary: 'Search definitions by name',
      description: 'Definitions (functions, classes, methods, types, ...) found by tree-sitter whose name contains `q` (case folded); an exact name first, then a prefix, then shorter names.',
      mcp: { name: 'search_symbols', hook: 'redact-credentials' },
      query: Revision.extend({ q: z.string().min(1, 'q is required').max(200), lang: z.string().max(40).optional().describe('Only this language (typescript, python, go, c, ...).'), limit: Limit }),
      responses: { 200: { description: 'Definitions, best first', schema: Symbols } },
    },
    ({ query }) => {
      const { repo, rev, reader } = open(query);
      const rows = reader.symbols(query.q, { exact: false, limit: query.limit ?? 100, ...(query.lang ? { languages: [query.lang] } : {}) });
      return { repo, rev, symbols: rows.map(toSymbol) };
    },
  );

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/definitions',
      summary: 'Where a name is defined',
      description: 'The definitions of exactly `name` (case as written); `Container.name` narrows to a member of that container.',
      mcp: { name: 'find_definition', hook: 'redact-credentials' },
      query: Revision.extend({ name: z.string().min(1, 'name is required').max(200) }),
      responses: { 200: { description: 'Definitions', schema: z.object({ repo: z.string(), rev: z.string().nullable(), name: z.string(), definitions: z.array(Symbol) }) } },
    },
    ({ query }) => {
      const { repo, rev, reader } = open(query);
      const dot = query.name.lastIndexOf('.');
      const [container, name] = dot > 0 ? [query.name.slice(0, dot), query.name.slice(dot + 1)] : [null, query.name];
      const rows = reader.symbols(name, { exact: true, limit: 1000 }).filter((s) => s.name === name && (container === null || s.container === container));
      return { repo, rev, name: query.name, definitions: rows.map(toSymbol) };
    },
  );

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/references',
      summary: 'Where a name is used',
      description: 'Identifier occurrences of exactly `name` found by tree-sitter (definitions are not references), with their lines.',
      mcp: { name: 'find_references', hook: 'redact-credentials' },
      query: Revision.extend({ name: z.string().min(1, 'name is required').max(200), limit: Limit }),
      responses: { 200: { description: 'References by path and line', schema: z.object({ repo: z.string(), rev: z.string().nullable(), name: z.string(), references: z.array(Reference) }) } },
    },
    ({ query }) => {
      const { repo, rev, reader } = open(query);
      const rows = reader.references(query.name, query.limit ?? 100);
      const lines = new Map<string, string[]>();
      const lineOf = (p: string, n: number) => {
        let l = lines.get(p);
        if (!l) lines.set(p, (l = (reader.file(p)?.content ?? '').split('\n')));
        const t = (l[n - 1] ?? '').replace(/\r$/, '');
        return t.length > 300 ? `${t.slice(0, 300)}…` : t;
      };
      return { repo, rev, name: query.name, references: rows.map((r) => ({ path: r.path, language: r.language, line: r.line, column: r.col, text: lineOf(r.path, r.line) })) };
    },
  );

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/files',
      summary: 'Read a file, or a line range of it',
      description:
        'The file as the index holds it. `path` is relative to the repository root; absolute paths and "." or ".." segments answer 422. A file not in the index answers 404 ' +
        '`file_not_indexed` with the reason (binary, oversized, ignored). A whole file over 512 KiB is refused: read it by line range.',
      mcp: { name: 'read_file', hook: 'redact-credentials' },
      errors: [...common.errors, 'file_not_indexed'],
      query: Revision.extend({ path: z.string().min(1, 'path is required').max(1000), start_line: LineNumber('start_line'), end_line: LineNumber('end_line') }),
      responses: {
        200: {
          description: 'The file or the range',
          schema: z.object({
            repo: z.string(), rev: z.string().nullable(), path: z.string(), language: z.string(), size: z.number().int().describe('Bytes of the whole file.'),
            total_lines: z.number().int(), start_line: z.number().int(), end_line: z.number().int(), content: z.string(),
          }),
        },
      },
    },
    ({ query }) => {
      const rel = repositoryPath('path', query.path);
      const { repo, rev, reader, dir } = open(query);
      const file = reader.file(rel);
      if (!file) throw searchErrors.error('file_not_indexed', { path: rel, reason: rev ? 'no such file in this revision\'s index' : whyNotIndexed(dir, rel, deps.maxFileBytes()) });
      const lines = file.content.split('\n');
      if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
      const ranged = query.start_line !== undefined || query.end_line !== undefined;
      const start = query.start_line ?? 1;
      const end = Math.min(query.end_line ?? lines.length, lines.length);
      if (start > end && !(lines.length === 0 && start === 1)) throw invalidInput('start_line', `start_line ${start} is after the range's end ${end} (the file has ${lines.length} lines)`);
      if (!ranged && file.size > MAX_READ_BYTES) throw searchErrors.error('file_not_indexed', { path: rel, reason: `oversized: ${file.size} bytes, over ${MAX_READ_BYTES} for a whole read; read a line range (start_line, end_line)` });
      return { repo, rev, path: rel, language: file.language, size: file.size, total_lines: lines.length, start_line: start, end_line: end, content: lines.slice(start - 1, end).join('\n') };
    },
  );

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/tree',
      summary: 'List a directory of the index',
      description: 'The files and directories directly under `path` (the root when absent) in the indexed revision; `recursive=true` lists every file under it.',
      mcp: { name: 'list_tree', hook: 'redact-credentials' },
      errors: [...common.errors, 'file_not_indexed'],
      query: Revision.extend({
        path: z.string().max(1000).optional(),
        recursive: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('true: every file under path, not only the direct entries.'),
        limit: Limit,
      }),
      responses: {
        200: {
          description: 'Entries: directories first, then files, each by name',
          schema: z.object({
            repo: z.string(), rev: z.string().nullable(), path: z.string(), truncated: z.boolean(),
            entries: z.array(z.object({ name: z.string(), path: z.string(), type: z.enum(['dir', 'file']), size: z.number().int().optional(), language: z.string().optional() })),
          }),
        },
      },
    },
    ({ query }) => {
      const rel = repositoryPath('path', query.path);
      const { repo, rev, reader } = open(query);
      const limit = query.limit ?? 1000;
      const under = reader.paths(rel);
      if (rel && !under.length) throw searchErrors.error('file_not_indexed', { path: rel, reason: reader.file(rel) ? 'a file: read it with GET /api/files' : 'no such directory in the index' });
      const prefix = rel ? `${rel}/` : '';
      const dirs = new Set<string>();
      const files: string[] = [];
      for (const p of under) {
        const rest = p.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash === -1 || query.recursive) files.push(p);
        else dirs.add(rest.slice(0, slash));
      }
      const sizes = reader.sizes(files.slice(0, limit));
      const entries = [
        ...[...dirs].sort().map((name) => ({ name, path: prefix + name, type: 'dir' as const })),
        ...files.map((p) => ({ name: p.slice(prefix.length), path: p, type: 'file' as const, ...(sizes.get(p) ? { size: sizes.get(p)!.size, language: sizes.get(p)!.language } : {}) })),
      ];
      return { repo, rev, path: rel, truncated: entries.length > limit, entries: entries.slice(0, limit) };
    },
  );

  api.route(
    {
      ...common,
      method: 'get',
      path: '/api/grep',
      summary: 'Exact or regular-expression search in a repository',
      description:
        'Every line matching `pattern` (a literal, or an RE2 regular expression with regex=true) in the files of the index, with line, column and byte offset; ' +
        'candidates come from the trigram index, every match is confirmed on the content. `path` is a regular expression over file paths.',
      mcp: { name: 'grep', hook: 'redact-credentials' },
      errors: [...common.errors, 'query_invalid'],
      query: Revision.extend({
        pattern: z.string().min(1, 'pattern is required').max(500),
        regex: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('true: pattern is a regular expression (RE2 syntax).'),
        case_sensitive: z.enum(['true', 'false']).transform((v) => v === 'true').optional().describe('true: match case as written (default: folded).'),
        path: z.string().max(500).optional().describe('Only files whose path matches this regular expression.'),
        lang: z.string().max(40).optional(),
        limit: Limit,
      }),
      responses: {
        200: {
          description: 'Matching files, most matches first',
          schema: z.object({
            repo: z.string(), rev: z.string().nullable(), partial: z.boolean(),
            files: z.array(z.object({ path: z.string(), language: z.string(), match_count: z.number().int(), matches: z.array(z.object({ line: z.number().int(), column: z.number().int(), byte_offset: z.number().int(), byte_length: z.number().int(), text: z.string() })) })),
          }),
        },
      },
    },
    ({ query }) => {
      // The same parser as /api/search, so a regex or path fault answers the same 400 query_invalid,
      // before the index is looked up (a malformed query is refused whatever the repository's state).
      const q: SearchQuery = parseSearchQuery(query.regex ? `/${query.pattern.replace(/(?<!\\)\//g, '\\/')}/` : `"${query.pattern.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`);
      if (query.case_sensitive) q.caseSensitive = true;
      if (query.path) q.files = parseSearchQuery(`x file:"${query.path.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).files;
      if (query.lang) q.langs = parseSearchQuery(`x lang:${query.lang}`).langs;
      const { repo, rev, reader } = open(query);
      const found = exactSearch(reader, q, { maxFiles: query.limit ?? 100, maxMatchesPerFile: 100, budgetMs: 3000 });
      return { repo, rev, partial: found.partial, files: found.files.map(({ score: _s, ...f }) => f) };
    },
  );
}

function toSymbol(s: { name: string; kind: string; container: string | null; path: string; language: string; line: number; col: number; end_line: number }) {
  return { name: s.name, kind: s.kind, container: s.container, path: s.path, language: s.language, line: s.line, column: s.col, end_line: s.end_line };
}
