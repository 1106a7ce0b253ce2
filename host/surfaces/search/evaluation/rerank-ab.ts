import { performance } from 'node:perf_hooks';
import type { JudgeAnswer, JudgeRequest } from '../../../../core/sdk/contracts/judge.js';
import type { TraceStore } from '../traces/trace-store.js';
import { selectQuestions } from './eval-runner.js';
import type { GoldenQuestion } from './golden-set.js';
import { distinctPaths, scoreQuestion, summarize, type EvalSummary } from './metrics.js';

export interface RerankCandidate {
  path: string;
  start_line: number;
  end_line: number;
  snippet: string;
}

export interface RerankOptions {
  golden: readonly GoldenQuestion[];
  defaultRepo: string;
  repo?: string;
  /** Candidates fetched and judged per question (the baseline's top N). */
  candidates: number;
  search: (q: string, repo: string, topK: number) => Promise<RerankCandidate[]>;
  /** Pointwise judgment, one call per candidate (the judge service of system_one.provider). */
  ask: (request: Omit<JudgeRequest, 'timeoutMs' | 'maxRetries'>) => Promise<JudgeAnswer>;
  traces?: TraceStore;
}

export interface RerankReport {
  candidates: number;
  baseline: EvalSummary & { hit_at_3: number };
  reranked: EvalSummary & { hit_at_3: number };
  delta: { mrr_at_10: number; ndcg_at_10: number; hit_at_1: number; hit_at_3: number; hit_at_5: number; hit_at_10: number };
  judge: { calls: number; input_tokens: number; output_tokens: number };
  questions: Array<{ q: string; repo: string; baseline_rank: number; reranked_rank: number; baseline_top: string[]; reranked_top: string[] }>;
  traces: string[];
}

/** The one question asked of every candidate. */
export const ANSWERS_QUERY = {
  answers_query: { type: 'noul' as const, instructions: 'Does the candidate passage answer the query, or is it the code the query asks about?' },
};

const hitAt3 = (rank: number) => rank > 0 && rank <= 3;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The reranker A/B harness: for each golden question, the search path's top candidates
 * (baseline), then the same candidates ordered by the judge's probability that each answers the
 * query (reranked); MRR, nDCG@10, hit@1/3/5/10 and p50/p95 latency side by side. A judge that
 * cannot answer fails the whole comparison with its typed reason (no default score).
 */
export async function runRerankAb(options: RerankOptions): Promise<RerankReport> {
  const selected = selectQuestions(options.golden, options.defaultRepo, options.repo);
  const base: Array<ReturnType<typeof scoreQuestion>> = [];
  const rer: Array<ReturnType<typeof scoreQuestion>> = [];
  const baseLatency: number[] = [];
  const rerLatency: number[] = [];
  const judge = { calls: 0, input_tokens: 0, output_tokens: 0 };
  const questions: RerankReport['questions'] = [];
  for (const g of selected) {
    const started = performance.now();
    const candidates = await options.search(g.q, g.repo, options.candidates);
    const searched = performance.now();
    const scores: number[] = [];
    for (const c of candidates) {
      const answer = await options.ask({ state: { query: g.q, candidate_passage: `${c.path}:${c.start_line}-${c.end_line}\n${c.snippet}` }, questions: ANSWERS_QUERY });
      judge.calls += 1;
      judge.input_tokens += answer.usage.input_tokens;
      judge.output_tokens += answer.usage.output_tokens;
      scores.push(answer.answers.answers_query ?? 0);
    }
    const judged = performance.now();
    // Stable: equal probabilities keep the baseline order.
    const order = candidates.map((c, i) => ({ c, i, p: scores[i]! })).sort((a, b) => b.p - a.p || a.i - b.i);
    const basePaths = distinctPaths(candidates.map((c) => c.path));
    const rerPaths = distinctPaths(order.map((o) => o.c.path));
    const b = scoreQuestion(basePaths, g.expect_paths);
    const r = scoreQuestion(rerPaths, g.expect_paths);
    base.push(b);
    rer.push(r);
    baseLatency.push(searched - started);
    rerLatency.push(judged - started);
    questions.push({ q: g.q, repo: g.repo, baseline_rank: b.rank, reranked_rank: r.rank, baseline_top: basePaths.slice(0, 5), reranked_top: rerPaths.slice(0, 5) });
  }
  const baseline = { ...summarize(base, baseLatency), hit_at_3: round4(base.filter((s) => hitAt3(s.rank)).length / Math.max(1, base.length)) };
  const reranked = { ...summarize(rer, rerLatency), hit_at_3: round4(rer.filter((s) => hitAt3(s.rank)).length / Math.max(1, rer.length)) };
  const delta = {
    mrr_at_10: round4(reranked.mrr_at_10 - baseline.mrr_at_10),
    ndcg_at_10: round4(reranked.ndcg_at_10 - baseline.ndcg_at_10),
    hit_at_1: round4(reranked.hit_at_1 - baseline.hit_at_1),
    hit_at_3: round4(reranked.hit_at_3 - baseline.hit_at_3),
    hit_at_5: round4(reranked.hit_at_5 - baseline.hit_at_5),
    hit_at_10: round4(reranked.hit_at_10 - baseline.hit_at_10),
  };
  const traces: string[] = [];
  if (options.traces) {
    for (const repo of [...new Set(questions.map((q) => q.repo))]) {
      const trace = options.traces.start(repo, 'reranker A/B');
      for (const q of questions.filter((x) => x.repo === repo)) trace.event('rerank.question', q);
      trace.event('rerank.summary', { baseline, reranked, delta, judge });
      const written = await trace.finish();
      if (written) traces.push(written);
    }
  }
  return { candidates: options.candidates, baseline, reranked, delta, judge, questions, traces };
}
