import { performance } from 'node:perf_hooks';
import type { TraceStore } from '../traces/trace-store.js';
import type { GoldenQuestion } from './golden-set.js';
import { distinctPaths, scoreQuestion, summarize, type EvalSummary, type QuestionScore } from './metrics.js';

/** Runs one query the way GET /api/search does; resolves to the ranked result paths. */
export type EvalSearch = (q: string, repo: string, topK: number) => Promise<Array<{ path: string }>>;

export interface EvalOptions {
  golden: readonly GoldenQuestion[];
  search: EvalSearch;
  /** Repository of questions that name none (REPO). */
  defaultRepo: string;
  /** Only questions of this repository (and those naming none) run. */
  repo?: string;
  /** Results asked for per question (metrics look at the first 10 distinct files). */
  topK?: number;
  traces?: TraceStore;
  /** Written into each trace as the question of the run, e.g. the golden file's name. */
  label?: string;
  /** Told after each question (answered so far, of how many). */
  onProgress?: (done: number, total: number) => void;
  /** Stops between questions (the run then rejects with the signal's reason). */
  signal?: AbortSignal;
}

/** Lets timers, I/O and other requests run: a search is synchronous work on the event loop. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export interface QuestionResult extends QuestionScore {
  q: string;
  repo: string;
  expect_paths: string[];
  top: string[];
  latency_ms: number;
}

export interface EvalReport {
  summary: EvalSummary;
  by_repo: Record<string, EvalSummary>;
  questions: QuestionResult[];
  /** Trace files written (relative to DATA_DIR), one per repository. */
  traces: string[];
}

/** The questions that would run, each with its resolved repository. */
export function selectQuestions(golden: readonly GoldenQuestion[], defaultRepo: string, repo?: string): Array<GoldenQuestion & { repo: string }> {
  return golden
    .map((g) => ({ ...g, repo: g.repo ?? repo ?? defaultRepo }))
    .filter((g) => repo === undefined || g.repo === repo);
}

/** Asks every question in order, scores the answers and writes one trace per repository. */
export async function runEvaluation(options: EvalOptions): Promise<EvalReport> {
  const topK = options.topK ?? 20;
  const selected = selectQuestions(options.golden, options.defaultRepo, options.repo);
  const questions: QuestionResult[] = [];
  for (const g of selected) {
    // One question per event-loop turn, so a long golden set never stalls other requests.
    await yieldToEventLoop();
    options.signal?.throwIfAborted();
    const started = performance.now();
    const results = await options.search(g.q, g.repo, topK);
    const latency = performance.now() - started;
    const paths = distinctPaths(results.map((r) => r.path));
    questions.push({ q: g.q, repo: g.repo, expect_paths: g.expect_paths, top: paths.slice(0, 10), latency_ms: Math.round(latency * 100) / 100, ...scoreQuestion(paths, g.expect_paths) });
    options.onProgress?.(questions.length, selected.length);
  }
  const summary = summarize(questions, questions.map((q) => q.latency_ms));
  const byRepo: Record<string, EvalSummary> = {};
  for (const repo of [...new Set(questions.map((q) => q.repo))]) {
    const own = questions.filter((q) => q.repo === repo);
    byRepo[repo] = summarize(own, own.map((q) => q.latency_ms));
  }
  const traces: string[] = [];
  if (options.traces) {
    for (const [repo, repoSummary] of Object.entries(byRepo)) {
      const trace = options.traces.start(repo, `evaluation: ${options.label ?? 'golden set'}`);
      for (const q of questions.filter((x) => x.repo === repo)) trace.event('eval.question', q);
      trace.event('eval.summary', repoSummary);
      const written = await trace.finish();
      if (written) traces.push(written);
    }
  }
  return { summary, by_repo: byRepo, questions, traces };
}

/** The report as the CLI prints it: one line per figure, then the misses. */
export function formatReport(report: EvalReport): string[] {
  const s = report.summary;
  const lines = [
    `questions  ${s.questions}`,
    `hit@1      ${s.hit_at_1.toFixed(3)}`,
    `hit@5      ${s.hit_at_5.toFixed(3)}`,
    `hit@10     ${s.hit_at_10.toFixed(3)}`,
    `MRR@10     ${s.mrr_at_10.toFixed(3)}`,
    `nDCG@10    ${s.ndcg_at_10.toFixed(3)}`,
    `MAP        ${s.map.toFixed(3)}`,
    `latency    p50 ${s.latency_ms.p50} ms, p95 ${s.latency_ms.p95} ms`,
  ];
  const misses = report.questions.filter((q) => !q.hit5);
  if (misses.length) {
    lines.push('', `not in the top 5 (${misses.length}):`);
    for (const m of misses) lines.push(`  [${m.repo}] ${m.q}  (rank ${m.rank || '-'}; expected ${m.expect_paths.join(' | ')}; got ${m.top.slice(0, 3).join(', ')})`);
  }
  for (const t of report.traces) lines.push(`trace: ${t}`);
  return lines;
}
