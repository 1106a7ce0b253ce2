import type { WorkbenchConfig } from '../workbench-settings.js';
import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { Request } from 'express';
import { httpError, invalid } from '../../../platform/http/error-catalogue.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { isRepoName, type CodeSearchPort } from '../../../platform/ports/code-search.js';
import type { RunAccounting } from '../../../platform/llm/accounting/run-accounting.js';
import type { SchemaProposals } from './schema-proposal.js';

const LaneCensusBody = z.object({
  lane: z.string(),
  status: z.enum(['open', 'closed', 'interrupted']),
  started: z.number().int(),
  completed: z.number().int().describe('Settled requests; completed + in_flight = started.'),
  succeeded: z.number().int(),
  failed: z.number().int(),
  uncertain: z.number().int(),
  in_flight: z.number().int(),
});

const ReasonBody = z.object({ code: z.string(), lane: z.string().optional(), detail: z.string() });

const CostsBody = z.object({
  state: z.enum(['complete', 'pending', 'incomplete']),
  reasons: z.array(ReasonBody),
  known_usd: z.number().describe('Charges known so far (kept when incomplete).'),
  known_display: z.string().describe('"< $0.01" below one cent, "$0.00 (metered zero)" for metered zero spend.'),
  lanes: z.array(z.object({ lane: z.string(), native_rows: z.number().int(), expected_rows: z.number().int(), known_usd: z.number(), unpriced_rows: z.number().int() })),
  native_rows: z.number().int(),
  reconciled_at: z.string(),
  benchmark: z
    .object({ generation_usd: z.number(), by_model: z.record(z.string(), z.number()), excluded_lanes: z.array(z.string()) })
    .optional()
    .describe('Answer runs: answer-generation cost only; shared retrieval explicitly excluded.'),
});

export const RunRecordBody = z.object({
  run_id: z.string(),
  corpus_id: z.string(),
  run_kind: z.enum(['index', 'schema_proposal', 'search', 'answer']),
  state: z.enum(['running', 'finished', 'failed', 'interrupted']),
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  lanes: z.array(LaneCensusBody).describe('The durable request census of each declared lane.'),
  not_applicable: z.record(z.string(), z.string()).describe('Lanes this run does not have, and why.'),
  coverage_reasons: z.array(z.string()),
  estimate: z.unknown().nullable().describe('The frozen pre-run estimate with the config (prices) it ran under.'),
  costs: CostsBody.nullable(),
  check_error: z.string().optional(),
  label: z.enum(['Pending', 'Complete', 'Incomplete', 'Incomplete · Interrupted', 'Check failed', 'Unavailable']),
  result: z.unknown().optional(),
  corpus_deleted: z.boolean(),
});

const ProposalBody = z.object({}).strict().optional().describe('Nothing to set yet: no body, or {}');

/** Whether the request carries a body (a length above zero, or a chunked one). */
function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

const CorpusParams = z.object({ corpus_id: z.string().refine(isRepoName, 'corpus_id must be a repository name') });
const RunParams = CorpusParams.extend({ run_id: z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'run_id must be a run id') });

// Resolving the corpus checks its name once more (a `validation_error` 422); the params already refuse with 400.
const CorpusNameRefused = { 422: { description: 'corpus_id is refused as a repository name (`validation_error`)' } };

/** What the routes on one run of a corpus, by id, declare alike: the ids in the path, the record, or no such run. */
function oneRun(description: string) {
  return { params: RunParams, errors: ['run_not_found'], responses: { 200: { description, schema: RunRecordBody }, ...CorpusNameRefused } };
}

export function registerAccountingRoutes(
  api: HttpApi,
  deps: { accounting: RunAccounting; proposals: SchemaProposals; codeSearch: () => CodeSearchPort; audit: AuditLog; config: WorkbenchConfig },
): void {
  const reads = api.group({ tags: ['run-accounting'], access: { scope: 'search:read' } });
  const writes = api.group({ tags: ['run-accounting'], access: { scope: 'search:index' } });

  reads.route(
    {
      method: 'get',
      path: '/api/index/:corpus_id/runs/latest',
      summary: 'Latest run of a corpus with its accounting',
      description: 'run_kind=schema_proposal selects proposals. By default the run is reconciled against the spend ledger first; finalize=false is a pure read. 404 once the corpus was deleted.',
      params: CorpusParams,
      query: z.object({
        run_kind: z.enum(['index', 'schema_proposal']).optional(),
        finalize: z.enum(['true', 'false']).optional().describe('false: read the saved record only.'),
      }),
      queryErrorStatus: 422,
      errors: ['corpus_deleted', 'run_not_found'],
      responses: { 200: { description: 'The run record', schema: RunRecordBody } },
    },
    async ({ params, query }) => deps.accounting.latest(params.corpus_id, query.run_kind ?? 'index', query.finalize !== 'false'),
  );

  reads.route(
    {
      method: 'get',
      path: '/api/index/:corpus_id/runs/:run_id',
      summary: 'One index or schema-proposal run with its saved accounting',
      description: 'A pure read. Remains readable after the index or the corpus is deleted.',
      ...oneRun('The run record'),
    },
    async ({ params }) => deps.accounting.view(params.corpus_id, params.run_id),
  );

  writes.route(
    {
      method: 'post',
      path: '/api/index/:corpus_id/runs/:run_id/costs/reconcile',
      summary: "Refresh a run's native spend from the gateway ledger",
      description: 'Reads GET /spend/logs/v2 for the run\'s session and classifies the rows against the census. Pending results are not saved (a pure read); a failed ledger read answers 200 with check_error and label "Check failed".',
      ...oneRun('The run record with its reconciled costs'),
    },
    async ({ params }) => deps.accounting.reconcile(params.corpus_id, params.run_id),
  );

  writes.route(
    {
      method: 'post',
      path: '/api/index/:corpus_id/schema-proposal',
      summary: 'Propose an entity/relation schema for a corpus',
      description:
        'One chat call through the LLM gateway (lane schema_proposal, GEN_MODEL). The proposal is saved as a run even when it fails; read it back with GET /api/index/{corpus_id}/runs/latest?run_kind=schema_proposal. ' +
        'No body, or `{}`. Calls for a corpus whose proposal is being made share that run (one LLM call); the `schema_proposal` rate-limit bucket (SCHEMA_PROPOSAL_RPM) bounds the rest.',
      params: CorpusParams,
      body: ProposalBody,
      rateLimit: { bucket: 'schema_proposal', perMinute: () => deps.config.get('SCHEMA_PROPOSAL_RPM') },
      errors: ['repository_not_found', 'corpus_deleted'],
      responses: { 201: { description: 'The saved proposal run (state finished or failed)', schema: RunRecordBody } },
    },
    async ({ params, req, res }) => {
      // express.json reads only JSON: any other body would otherwise pass unread.
      if (req.body === undefined && hasBody(req)) throw invalid('body', 'must be JSON (Content-Type: application/json): no body or {}', 400);
      const repo = deps.codeSearch().resolve(params.corpus_id);
      if (await deps.accounting.store.isDeleted(repo.name)) throw httpError('corpus_deleted', { corpus: repo.name, hint: 'index it again with POST /api/index/start' });
      const { view: pending, joined } = deps.proposals.proposeOrJoin(repo);
      const view = await pending;
      if (!joined) await deps.audit.record('schema_proposed', { corpus: repo.name, run: view.run_id, state: view.state });
      res.status(201).json(view);
    },
  );

  writes.route(
    {
      method: 'delete',
      path: '/api/index/:corpus_id',
      summary: "Delete a corpus's index",
      description: 'Drops the retrieval index of the repository. Run records stay readable by id; current-state reads (status, latest run, search) answer 404 until the corpus is indexed again.',
      params: CorpusParams,
      errors: ['repository_not_found', 'index_run_running', 'retrieval_backend_unavailable'],
      responses: { 200: { description: 'Deleted', schema: z.object({ corpus_id: z.string(), deleted: z.literal(true) }) }, ...CorpusNameRefused },
    },
    async ({ params }) => {
      const repo = deps.codeSearch().resolve(params.corpus_id);
      await deps.codeSearch().dropIndex(repo);
      await deps.accounting.store.markDeleted(repo.name);
      await deps.audit.record('index_deleted', { corpus: repo.name });
      return { corpus_id: repo.name, deleted: true as const };
    },
  );
}
