import { z } from 'zod';
import type { TraceStore } from './trace-store.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { repositoryRoutes, type RepositoryResolver } from '../repositories/repo-query.js';
import { searchErrors } from '../search-errors.js';

const TraceListing = z.object({
  repo: z.string(),
  files: z.array(z.object({ path: z.string().describe('Relative to DATA_DIR: out/<repo>/traces/<name>'), name: z.string(), mtime: z.string() })).describe('Newest first'),
});
const Trace = z.object({
  repo: z.string(),
  id: z.string(),
  question: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  events: z.array(z.object({ ts: z.string(), kind: z.string(), data: z.unknown() })),
});

export interface TraceRouteDeps {
  traces: TraceStore;
  repositories: RepositoryResolver;
}

/** GET /api/traces and GET /api/traces/latest over DATA_DIR/out/<repo>/traces. */
export function registerTraceRoutes(api: HttpApi, deps: TraceRouteDeps): void {
  const routes = repositoryRoutes(api, deps.repositories, ['code-search']);

  routes.route(
    {
      method: 'get',
      path: '/api/traces',
      summary: 'Trace files of a repository, newest first',
      access: { scope: 'search:read' },
      responses: { 200: { description: 'Trace listing', schema: TraceListing } },
    },
    async (repo) => ({ repo, files: await deps.traces.list(repo) }),
  );

  routes.route(
    {
      method: 'get',
      path: '/api/traces/latest',
      summary: 'The latest trace of a repository',
      description: 'When the repository has no readable trace yet the answer is 404 `{"detail", "code": "trace_not_found"}`.',
      access: { scope: 'search:read' },
      errors: ['trace_not_found'],
      responses: { 200: { description: 'The trace document', schema: Trace } },
    },
    async (repo) => {
      const latest = await deps.traces.latest(repo);
      if (latest.ok) return latest.trace;
      throw searchErrors.error('trace_not_found', { repo });
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/api/traces/:name',
      summary: 'One trace of a repository, by the file name /api/traces lists',
      access: { scope: 'search:read' },
      params: z.object({ name: z.string().min(1).max(100).describe('A trace file name, e.g. 20260101T120000Z_0123abcd.json') }),
      errors: ['trace_not_found'],
      responses: { 200: { description: 'The trace document', schema: Trace } },
    },
    async (repo, { params }) => {
      const trace = await deps.traces.read(repo, (params as { name: string }).name);
      if (trace) return trace;
      throw searchErrors.error('trace_not_found', { repo });
    },
  );
}
