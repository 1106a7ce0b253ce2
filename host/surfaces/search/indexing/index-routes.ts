import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { SearchConfig } from '../search-settings.js';
import type { IndexRunStore } from './index-run-store.js';
import type { IndexRuns } from './index-runs.js';
import { statusLines } from './index-status.js';
import type { Repositories } from '../repositories/repositories.js';
import { httpError } from '../../../platform/http/error-catalogue.js';


const StartBody = z
  .object({
    enrich: z.boolean().optional().describe('Enrich chunks: with GEN_MODEL (and EMBEDDING_MODEL) set, one chat call per chunk writes a summary and keywords, indexed as their own field. Defaults to ENRICH_CODE_CHUNKS.'),
    repo: z.string().optional().describe('Repository name (a key of REPOS); defaults to REPO.'),
  })
  .strict();

const RunBody = z.object({
  id: z.string(),
  repo: z.string(),
  kind: z.string().describe('index (not yet known), full or incremental'),
  state: z.enum(['running', 'finished', 'failed', 'interrupted']),
  files_seen: z.number().int(),
  files_changed: z.number().int(),
  files_removed: z.number().int(),
  files_skipped: z.number().int(),
  chunks: z.number().int(),
  vectors: z.number().int(),
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});

const StatusBody = z.object({
  status: z.array(z.string()).describe('Ordered human-readable progress lines.'),
  metadata: z.object({
    repo: z.string(),
    started_at: z.string().nullable().describe('ISO 8601; null when the repository was never indexed.'),
    finished_at: z.string().nullable().describe('ISO 8601; null while running (or never indexed).'),
  }),
  run: RunBody.nullable().describe('The durable row of the latest run (beyond the spec).'),
});

export function registerIndexRoutes(api: HttpApi, deps: { runs: IndexRuns; store: IndexRunStore; repositories: Repositories; config: SearchConfig; audit: AuditLog; isDeleted?: (corpus: string) => Promise<boolean> }): void {
  api.route(
    {
      method: 'post',
      path: '/api/index/start',
      summary: 'Start indexing a repository',
      mcp: { name: 'start_index' },
      description:
        'Starts a run in the background (a worker thread supervising an indexer child process) and answers at once. ' +
        'One run per repository at a time; progress via GET /api/index/status. The body is optional.',
      tags: ['code-search'],
      access: { scope: 'search:index' },
      // Optional, but JSON or nothing: a text/plain or form body answers 415 before any run starts.
      body: StartBody.optional().describe('Optional: {enrich?, repo?}'),
      errors: ['repository_not_found', 'index_run_running', 'retrieval_backend_unavailable', 'retrieval_backend_cannot_index', 'shutting_down'],
      responses: { 202: { description: 'Run started', schema: z.object({ id: z.string(), repo: z.string(), started_at: z.string(), state: z.literal('running') }) } },
    },
    async ({ body, res }) => {
      const run = await deps.runs.start(body?.repo, body?.enrich ?? deps.config.get('ENRICH_CODE_CHUNKS'));
      await deps.audit.record('index_started', { repo: run.repo, run: run.id, enrich: !!run.enrich });
      res.status(202).json({ id: run.id, repo: run.repo, started_at: run.started_at, state: 'running' });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/index/status',
      summary: 'Progress of the latest indexing run',
      mcp: { name: 'index_status' },
      tags: ['code-search'],
      access: { scope: 'search:read' },
      query: z.object({ repo: z.string().optional().describe('Repository name; defaults to REPO.') }),
      queryErrorStatus: 422,
      errors: ['repository_not_found', 'corpus_deleted'],
      responses: { 200: { description: 'Status lines and timestamps of the latest run', schema: StatusBody } },
    },
    async ({ query }) => {
      const repo = deps.repositories.resolve(query.repo);
      // A deleted corpus has no current state (its run records stay readable by id).
      if (await deps.isDeleted?.(repo.name)) throw httpError('corpus_deleted', { corpus: repo.name, hint: 'index it again with POST /api/index/start' });
      const run = await deps.store.latest(repo.name);
      if (!run) return { status: [`Repository ${repo.name} has not been indexed yet (POST /api/index/start)`], metadata: { repo: repo.name, started_at: null, finished_at: null }, run: null };
      const { heartbeat_at: _h, enrich: _e, ...view } = run;
      return {
        status: statusLines(run, deps.config.get('EMBEDDING_MODEL')),
        metadata: { repo: run.repo, started_at: run.started_at, finished_at: run.finished_at },
        run: view,
      };
    },
  );
}
