import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import { publicResult, RETRIEVAL_ERRORS, type CodeSearch, type SearchOutcome } from './code-search.js';
import type { TraceStore } from '../traces/trace-store.js';
import { httpError } from '../../../platform/http/error-catalogue.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';


const SearchQuery = z.object({
  q: z
    .string({ error: 'q is required' })
    .refine((v) => v.trim().length > 0, 'q cannot be empty')
    .refine((v) => v.length <= 1000, 'q is longer than 1000 characters')
    .describe('Query text: a question in plain English or an identifier. Any characters; nothing is query syntax.'),
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
});

export const SearchResponseBody = z.object({
  query: z.string(),
  repo: z.string(),
  top_k: z.number().int().describe('The resolved value (top_k, else FINAL_K).'),
  results: z.array(SearchResultBody),
  trace: z.string().optional().describe('With trace=true: the trace file written, relative to DATA_DIR (out/<repo>/traces/<name> is DATA_DIR/out/<repo>/traces/<name>).'),
});

/** GET /api/search: retrieval only, no LLM call (an embedding call when EMBEDDING_MODEL is set). */
export function registerSearchRoutes(
  api: HttpApi,
  deps: { search: CodeSearch; traces?: TraceStore; repositories: RepositoryResolver; isDeleted?: (repo: string) => Promise<boolean> },
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
      errors: ['repository_not_found', 'corpus_deleted', ...RETRIEVAL_ERRORS],
      responses: { 200: { description: 'Results, best first', schema: SearchResponseBody } },
    },
    async ({ query }) => {
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
