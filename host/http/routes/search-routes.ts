import { z } from 'zod';
import type { ConfigRegistry } from '../../config/registry.js';
import { PluginNotAvailableError, type Kernel } from '../../../core/kernel/kernel.js';
import type { HttpApi } from '../api.js';
import { HttpError } from '../errors.js';

const SearchQuery = z.object({
  q: z.string().min(1, 'q is required').max(2000),
  repo: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, 'repo is letters, digits, dot, dash, underscore').optional(),
  top_k: z.coerce.number().int().min(1).max(200).optional(),
});
const SearchResult = z.object({ score: z.number(), path: z.string(), start_line: z.number().int(), end_line: z.number().int(), snippet: z.string() });

/**
 * GET /api/search: retrieval only, through the active retrieval provider (RETRIEVAL_BACKEND).
 * top_k defaults to FINAL_K (LANGGRAPH_FINAL_K is the answer graph's).
 */
export function registerSearchRoutes(api: HttpApi, deps: { kernel: Kernel; config: ConfigRegistry }): void {
  api.route(
    {
      method: 'get',
      path: '/api/search',
      summary: 'Retrieval-only search through the active retrieval provider',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      query: SearchQuery,
      responses: {
        200: { description: 'Results', schema: z.object({ query: z.string(), repo: z.string(), top_k: z.number().int(), results: z.array(SearchResult) }) },
        400: { description: 'Bad query parameters' },
        503: { description: 'No active retrieval provider' },
      },
    },
    async ({ query }) => {
      const repo = query.repo ?? deps.config.get('REPO');
      const topK = query.top_k ?? deps.config.get('FINAL_K');
      const backend = deps.config.get('RETRIEVAL_BACKEND');
      if (!backend) throw new HttpError(503, 'no retrieval backend configured (set RETRIEVAL_BACKEND)');
      try {
        const hits = await deps.kernel.withProvider('retrieval', backend, (p) => p.search(repo, query.q, topK));
        return {
          query: query.q,
          repo,
          top_k: topK,
          results: hits.map((h) => ({
            score: h.score,
            path: typeof h.metadata?.path === 'string' ? h.metadata.path : h.id,
            start_line: Number(h.metadata?.start_line ?? 1),
            end_line: Number(h.metadata?.end_line ?? h.metadata?.start_line ?? 1),
            snippet: h.text,
          })),
        };
      } catch (err) {
        if (err instanceof PluginNotAvailableError) throw new HttpError(503, `retrieval backend "${backend}" is not available: ${err.message}`);
        throw err;
      }
    },
  );
}
