import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import type { LabRuns } from './lab-runs.js';
import { workbenchErrors } from '../workbench-errors.js';

const LAB = { scope: 'judge:run' } as const;
export const MAX_LAB_ROWS = 200;

const Row = z.object({ question: z.string().min(1).max(4000), quote: z.string().min(1).max(20000), expected_answer: z.string().min(1).max(4000) }).strict();
const StartBody = z
  .object({
    rows: z.array(Row).min(1).max(MAX_LAB_ROWS),
    gate_min: z.number().min(0).max(1).optional().describe('Minimum probability of yes of each gating question; default LAB_GATE_MIN'),
  })
  .strict();
const Scores = z.object({ reader_question: z.number(), answer_supported: z.number(), answer_cued_in_question: z.number() });
export const LabRun = z.object({
  id: z.string(),
  state: z.enum(['running', 'succeeded', 'failed']),
  attempts: z.number().int(),
  request: z.object({ rows: z.array(Row), gate_min: z.number() }),
  results: z.array(z.object({ index: z.number().int(), scores: Scores, passed: z.boolean() })).nullable(),
  summary: z.object({ rows: z.number().int(), passed: z.number().int(), cued: z.number().int() }).nullable(),
  error: z.object({ outcome: z.string(), detail: z.string() }).nullable().describe('The typed reason a judge could not answer (SystemOneError outcome)'),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
const IdParam = z.object({ id: z.uuid('must be a run id') });

/** The synthetic-data lab over HTTP: judge grounded rows, read a run, retry a failed run. */
export function registerLabRoutes(api: HttpApi, deps: { runs: LabRuns; config: WorkbenchConfig }): void {
  const routes = api.group({ tags: ['workbench: judgment'], access: LAB });

  routes.route(
    {
      method: 'post',
      path: '/api/lab/runs',
      summary: 'Judge grounded evaluation rows (question, quote, expected answer) with the three lab questions',
      description:
        'Each row is asked reader_question and answer_supported (both gate at gate_min) and answer_cued_in_question (reported only) by the judge of system_one.provider. A judge that cannot answer fails the run with the typed reason; the run is stored either way and a failed run can be retried.',
      body: StartBody,
      responses: {
        201: { description: 'The finished run: succeeded, or failed with error.outcome', schema: LabRun },
      },
    },
    async ({ body, res }) => {
      const run = await deps.runs.start({ rows: body.rows, gate_min: body.gate_min ?? deps.config.get('LAB_GATE_MIN') });
      res.status(201);
      return run;
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/api/lab/runs/:id',
      summary: 'One lab run',
      params: IdParam,
      errors: ['lab_run_not_found'],
      responses: { 200: { description: 'The run', schema: LabRun } },
    },
    async ({ params }) => {
      const run = await deps.runs.get(params.id);
      if (!run) throw workbenchErrors.error('lab_run_not_found', { id: params.id });
      return run;
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/api/lab/runs/:id/retry',
      summary: 'Retry a failed lab run: replays the request stored on the run',
      params: IdParam,
      errors: ['lab_run_not_found', 'lab_run_not_failed'],
      responses: { 200: { description: 'The run after the retry', schema: LabRun } },
    },
    async ({ params }) => {
      const run = await deps.runs.retry(params.id);
      if (run === 'not_found') throw workbenchErrors.error('lab_run_not_found', { id: params.id });
      if (run === 'not_failed') throw workbenchErrors.error('lab_run_not_failed', { id: params.id });
      return run;
    },
  );
}
