import { z } from 'zod';
import { GoldenSet } from './golden-set.js';
import { runEvaluation, type EvalSearch } from './eval-runner.js';
import { goldenScope } from './golden-scope.js';
import type { TraceStore } from '../traces/trace-store.js';
import type { EvalCanaries } from './eval-canaries.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';
import { invalid } from '../../../platform/http/error-catalogue.js';

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

export interface EvalRouteDeps {
  search: EvalSearch;
  /** Readies a repository before its questions run (keywords built), so every question ranks alike. */
  prepare?: (repo: string) => Promise<void>;
  repositories: RepositoryResolver;
  traces: TraceStore;
  /** Where named runs are recorded (baselines and canaries). */
  canaries?: EvalCanaries;
}

/** POST /api/eval/run: ranking quality of a golden set through the search path. */
export function registerEvalRoutes(api: HttpApi, deps: EvalRouteDeps): void {
  api.route(
    {
      method: 'post',
      path: '/api/eval/run',
      summary: 'Evaluate search against a golden set (hit@1/5/10, MRR@10, nDCG@10, MAP, p50/p95 latency)',
      description: 'The same figures `switchboard eval --golden <file>` prints; a trace per repository is written under out/<repo>/traces/.',
      tags: ['code-search'],
      access: { scope: 'search:read' },
      body: EvalRunBody,
      responses: {
        200: { description: 'Figures, per question results and the traces written', schema: EvalRunResult },
        404: { description: 'A repository named by the golden set or `repo` is unknown' },
        422: { description: 'Malformed golden set or body (the failing entry and field are named)' },
      },
    },
    async ({ body }) => {
      const { defaultRepo, only } = await goldenScope(body.golden, body.repo, deps);
      if (body.save_as_baseline && !body.name) throw invalid('save_as_baseline', 'needs a name');
      const report = await runEvaluation({ golden: body.golden, search: deps.search, defaultRepo, repo: only, topK: body.top_k, traces: deps.traces, label: 'POST /api/eval/run' });
      if (body.name && deps.canaries) await deps.canaries.record(body.name, report.summary, body.save_as_baseline ?? false);
      return report;
    },
  );
}
