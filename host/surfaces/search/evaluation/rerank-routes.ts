import { z } from 'zod';
import { GoldenSet } from './golden-set.js';
import { runRerankAb, type RerankCandidate } from './rerank-ab.js';
import { goldenScope } from './golden-scope.js';
import type { TraceStore } from '../traces/trace-store.js';
import { JUDGE_ERRORS, type JudgeService } from '../../../platform/judges/judge-service.js';
import { RETRIEVAL_ERRORS } from '../retrieval/code-search.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { RepositoryResolver } from '../repositories/repo-query.js';
import { EvalSummary } from './eval-routes.js';

const Summary = EvalSummary.extend({ hit_at_3: z.number() });
const Body = z
  .object({
    golden: GoldenSet.describe('[{q, repo?, expect_paths: [path substrings]}]'),
    repo: z.string().max(200).optional(),
    candidates: z.number().int().min(1).max(50).default(10).describe('Search results judged per question (each is one judge call)'),
  })
  .strict();
const Report = z.object({
  candidates: z.number().int(),
  baseline: Summary,
  reranked: Summary,
  delta: z.object({ mrr_at_10: z.number(), ndcg_at_10: z.number(), hit_at_1: z.number(), hit_at_3: z.number(), hit_at_5: z.number(), hit_at_10: z.number() }),
  judge: z.object({ calls: z.number().int(), input_tokens: z.number().int(), output_tokens: z.number().int() }),
  questions: z.array(z.object({ q: z.string(), repo: z.string(), baseline_rank: z.number().int(), reranked_rank: z.number().int(), baseline_top: z.array(z.string()), reranked_top: z.array(z.string()) })),
  traces: z.array(z.string()),
});

/** POST /api/eval/rerank-ab: pointwise judging of search candidates, baseline against reranked. */
export function registerRerankRoutes(
  api: HttpApi,
  deps: { search: (q: string, repo: string, topK: number) => Promise<RerankCandidate[]>; prepare?: (repo: string) => Promise<void>; judge: Pick<JudgeService, 'ask'>; repositories: RepositoryResolver; traces: TraceStore },
): void {
  api.route(
    {
      method: 'post',
      path: '/api/eval/rerank-ab',
      summary: 'Reranker A/B: search candidates judged pointwise (answers_query) and reranked, metrics side by side',
      description:
        'For each golden question the search path returns `candidates` results (baseline); the judge of system_one.provider scores each with one typed question, answers_query, and the candidates are reordered by that probability (reranked). Reports MRR@10, nDCG@10, MAP, hit@1/3/5/10 and p50/p95 latency of both, judge calls and tokens, and writes a trace per repository. A judge that cannot answer fails the comparison (502, its typed outcome named).',
      tags: ['code-search', 'workbench: judgment'],
      access: { scope: 'judge:run' },
      body: Body,
      errors: ['repository_not_found', ...RETRIEVAL_ERRORS, ...JUDGE_ERRORS],
      responses: { 200: { description: 'Baseline and reranked figures', schema: Report } },
    },
    async ({ body }) => {
      const { defaultRepo, only } = await goldenScope(body.golden, body.repo, deps);
      // a judge that cannot answer throws SystemOneError: 502 judge_<outcome> through the domain mapping
      return await runRerankAb({
        golden: body.golden,
        defaultRepo,
        ...(only ? { repo: only } : {}),
        candidates: body.candidates,
        search: deps.search,
        ask: (request) => deps.judge.ask(request, 'reranker'),
        traces: deps.traces,
      });
    },
  );
}
