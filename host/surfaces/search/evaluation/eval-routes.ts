import { z } from 'zod';
import { GoldenSet } from './golden-set.js';
import type { Response } from 'express';
import { goldenScope } from './golden-scope.js';
import type { EvalJobs } from './eval-jobs.js';
import type { EvalJob, EvalJobStore } from './eval-job-store.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { SearchConfig } from '../search-settings.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';
import { httpError, invalid } from '../../../platform/http/error-catalogue.js';
import { principalOf } from '../../../platform/auth/access-guard.js';
import { grants } from '../../../platform/auth/scopes.js';
import { searchErrors } from '../search-errors.js';
import { RETRIEVAL_ERRORS } from '../retrieval/code-search.js';

const EvalRunBody = z
  .object({
    golden: GoldenSet.describe('The golden set: [{q, repo?, expect_paths: [path substrings]}]; a result is a hit when its path contains one of them'),
    repo: z.string().max(200).optional().describe('Only questions of this repository (and those naming none) run'),
    top_k: z.number().int().min(10).max(100).optional().describe('Results asked for per question (default 20; metrics judge the first 10 distinct files)'),
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/, 'a name of letters, digits, ".", "_", ":" and "-"')
      .optional()
      .describe('Records the run under this name (a canary, or a model or reranker version); the alert engine compares its latest run with its baseline'),
    save_as_baseline: z.boolean().optional().describe('With name: this run becomes the baseline later runs of the name are judged against'),
    background: z.boolean().optional().describe('POST /api/eval/run only: answer 202 at once even for a small set'),
  })
  .strict();
/** The ranking figures of a set of questions; the reranker A/B reports them too. */
export const EvalSummary = z.object({
  questions: z.number().int(),
  hit_at_1: z.number(),
  hit_at_5: z.number(),
  hit_at_10: z.number(),
  mrr_at_10: z.number(),
  ndcg_at_10: z.number(),
  map: z.number(),
  latency_ms: z.object({ p50: z.number(), p95: z.number() }),
});
const EvalRunResult = z.object({
  summary: EvalSummary,
  by_repo: z.record(z.string(), EvalSummary),
  questions: z.array(
    z.object({ q: z.string(), repo: z.string(), expect_paths: z.array(z.string()), rank: z.number().int().describe('1-based rank of the first hit, 0 for none'), top: z.array(z.string()), latency_ms: z.number() }).passthrough(),
  ),
  traces: z.array(z.string()).describe('Trace files written, relative to DATA_DIR (one per repository)'),
});

const EvalJobView = z.object({
  id: z.string(),
  state: z.enum(['running', 'finished', 'failed', 'interrupted']),
  questions: z.number().int().describe('Questions selected for the run'),
  done: z.number().int().describe('Questions answered so far'),
  name: z.string().nullable(),
  save_as_baseline: z.boolean(),
  error: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  report: EvalRunResult.nullable().describe('The figures once finished (the 200 body of a synchronous POST /api/eval/run)'),
});

export interface EvalRouteDeps {
  jobs: EvalJobs;
  store: EvalJobStore;
  repositories: RepositoryResolver;
  config: SearchConfig;
}

/** A job row as the API shows it. */
function jobView(job: EvalJob): z.infer<typeof EvalJobView> {
  return {
    id: job.id,
    state: job.state as z.infer<typeof EvalJobView>['state'],
    questions: Number(job.questions),
    done: Number(job.done),
    name: job.name,
    save_as_baseline: Number(job.baseline) === 1,
    error: job.error,
    started_at: job.started_at,
    finished_at: job.finished_at,
    report: job.report ? (JSON.parse(job.report) as z.infer<typeof EvalRunResult>) : null,
  };
}

/**
 * POST /api/eval/run (the report at once for small sets), POST /api/eval/runs (always in the
 * background) and GET /api/eval/runs/{id}: ranking quality of a golden set through the search path.
 */
export function registerEvalRoutes(api: HttpApi, deps: EvalRouteDeps): void {
  const start = async (body: z.infer<typeof EvalRunBody>, res: Response, label: string) => {
    const max = deps.config.get('EVAL_MAX_QUESTIONS');
    if (body.golden.length > max) throw httpError('payload_too_large', { what: 'golden set', limit: `${max} questions (EVAL_MAX_QUESTIONS)` });
    if (body.save_as_baseline && !body.name) throw invalid('save_as_baseline', 'needs a name');
    // A named run is what evaluation alerts compare: recording one is not a read.
    if (body.name && !grants(principalOf(res).scopes, 'search:evaluate')) throw httpError('insufficient_scope', { scope: 'search:evaluate', use: body.save_as_baseline ? 'saving a baseline' : 'recording a named run' });
    const scope = await goldenScope(body.golden, body.repo, { repositories: deps.repositories });
    return deps.jobs.start({
      golden: body.golden,
      defaultRepo: scope.defaultRepo,
      only: scope.only,
      repos: scope.repos,
      questions: scope.questions,
      ...(body.top_k ? { topK: body.top_k } : {}),
      ...(body.name ? { name: body.name } : {}),
      saveAsBaseline: body.save_as_baseline ?? false,
      label,
    });
  };
  const accepted = (res: Response, job: EvalJob) => {
    res.status(202).location(`/api/eval/runs/${job.id}`);
    return jobView(job);
  };
  // Beside the defaults: more questions than EVAL_MAX_QUESTIONS is `payload_too_large`, a `name` without search:evaluate `insufficient_scope`.
  const refusals = ['repository_not_found', 'evaluation_runs_busy', 'shutting_down'];

  api.route(
    {
      method: 'post',
      path: '/api/eval/run',
      accessNote: '`search:read`; with `name` or `save_as_baseline` also `search:evaluate`',
      summary: 'Evaluate search against a golden set (hit@1/5/10, MRR@10, nDCG@10, MAP, p50/p95 latency)',
      description:
        'The same figures `switchboard eval --golden <file>` prints; a trace per repository is written under DATA_DIR/out/<repo>/traces/. ' +
        'Up to EVAL_SYNC_MAX_QUESTIONS selected questions the report is the answer (200); a larger set, or `background: true`, runs in the background (202 with the run; follow it with GET /api/eval/runs/{id}). ' +
        'Every evaluation is a recorded run; questions are asked one per event-loop turn, so a long set never stalls other requests.',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      body: EvalRunBody,
      // waiting for the report, the caller meets what its searches met
      errors: [...refusals, ...RETRIEVAL_ERRORS],
      responses: {
        200: { description: 'Figures, per question results and the traces written', schema: EvalRunResult.extend({ run_id: z.string().describe('The recorded run (GET /api/eval/runs/{id})') }) },
        202: { description: 'Too many questions to wait for (or `background: true`): the run, started', schema: EvalJobView },
      },
    },
    async ({ body, res }) => {
      const { job, report } = await start(body, res, 'POST /api/eval/run');
      if (body.background || job.questions > deps.config.get('EVAL_SYNC_MAX_QUESTIONS')) return accepted(res, job);
      return { ...(await report), run_id: job.id };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/eval/runs',
      accessNote: '`search:read`; with `name` or `save_as_baseline` also `search:evaluate`',
      summary: 'Start an evaluation run in the background',
      description: 'The body of POST /api/eval/run; answers 202 at once with the run. GET /api/eval/runs/{id} gives its progress and, once finished, the report.',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      body: EvalRunBody,
      errors: refusals,
      responses: { 202: { description: 'The run, started', schema: EvalJobView } },
    },
    async ({ body, res }) => accepted(res, (await start(body, res, 'POST /api/eval/runs')).job),
  );

  api.route(
    {
      method: 'get',
      path: '/api/eval/runs/:id',
      summary: 'One evaluation run: progress, then the report',
      description: 'A run left running by a gateway that stopped reads as interrupted.',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      params: z.object({ id: z.uuid('must be a run id') }),
      errors: ['evaluation_run_not_found'],
      responses: { 200: { description: 'The run', schema: EvalJobView } },
    },
    async ({ params }) => {
      const job = await deps.store.get(params.id);
      if (!job) throw searchErrors.error('evaluation_run_not_found', { id: params.id });
      return jobView(job);
    },
  );
}
