/**
 * Ranking metrics of one golden question and their means. Results are judged at file level:
 * the ranked paths are de-duplicated (first occurrence kept) before judging, and a path is
 * relevant when it contains one of the expected substrings. Each expected substring is one
 * expected file, credited once, so a question listing two files needs both for a full nDCG/AP.
 */

/** The ranked paths of one answer, de-duplicated, first occurrence kept. */
export function distinctPaths(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** 1-based rank of the first path holding an expected substring, or 0 when none does. */
export function firstHitRank(paths: readonly string[], expect: readonly string[]): number {
  const i = paths.findIndex((p) => expect.some((e) => p.includes(e)));
  return i < 0 ? 0 : i + 1;
}

/** True when an expected file is among the first k paths. */
export function hitAt(paths: readonly string[], expect: readonly string[], k: number): boolean {
  const rank = firstHitRank(paths, expect);
  return rank > 0 && rank <= k;
}

/** Reciprocal rank of the first hit within the first k paths (0 beyond). */
export function reciprocalRankAt(paths: readonly string[], expect: readonly string[], k: number): number {
  const rank = firstHitRank(paths, expect);
  return rank > 0 && rank <= k ? 1 / rank : 0;
}

/** For each of the first k paths, whether it credits an expected substring not credited before. */
export function gains(paths: readonly string[], expect: readonly string[], k: number): boolean[] {
  const credited = new Set<number>();
  return paths.slice(0, k).map((p) => {
    const j = expect.findIndex((e, idx) => !credited.has(idx) && p.includes(e));
    if (j < 0) return false;
    credited.add(j);
    return true;
  });
}

/** nDCG@k with binary gains; the ideal ranking puts min(k, expected files) hits first. */
export function ndcgAt(paths: readonly string[], expect: readonly string[], k: number): number {
  if (expect.length === 0) return 0;
  const dcg = gains(paths, expect, k).reduce((sum, g, i) => sum + (g ? 1 / Math.log2(i + 2) : 0), 0);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, expect.length); i++) idcg += 1 / Math.log2(i + 2);
  return dcg / idcg;
}

/** Average precision over the first k paths, divided by the number of expected files. */
export function averagePrecisionAt(paths: readonly string[], expect: readonly string[], k: number): number {
  if (expect.length === 0) return 0;
  let found = 0;
  let sum = 0;
  gains(paths, expect, k).forEach((g, i) => {
    if (g) {
      found++;
      sum += found / (i + 1);
    }
  });
  return sum / expect.length;
}

/** Nearest-rank percentile (p in 0..100) of the values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export interface QuestionScore {
  hit1: boolean;
  hit5: boolean;
  hit10: boolean;
  rr10: number;
  ndcg10: number;
  ap10: number;
  /** 1-based rank of the first hit, 0 when none was returned. */
  rank: number;
}

/** Every metric of one question, from its ranked (already de-duplicated) paths. */
export function scoreQuestion(paths: readonly string[], expect: readonly string[]): QuestionScore {
  return {
    hit1: hitAt(paths, expect, 1),
    hit5: hitAt(paths, expect, 5),
    hit10: hitAt(paths, expect, 10),
    rr10: reciprocalRankAt(paths, expect, 10),
    ndcg10: ndcgAt(paths, expect, 10),
    ap10: averagePrecisionAt(paths, expect, 10),
    rank: firstHitRank(paths, expect),
  };
}

export interface EvalSummary {
  questions: number;
  hit_at_1: number;
  hit_at_5: number;
  hit_at_10: number;
  mrr_at_10: number;
  ndcg_at_10: number;
  map: number;
  latency_ms: { p50: number; p95: number };
}

/** Means over the questions, rounded to 4 decimals, and latency percentiles. */
export function summarize(scores: readonly QuestionScore[], latenciesMs: readonly number[]): EvalSummary {
  const n = scores.length;
  const mean = (f: (s: QuestionScore) => number) => (n ? round(scores.reduce((sum, s) => sum + f(s), 0) / n, 4) : 0);
  return {
    questions: n,
    hit_at_1: mean((s) => Number(s.hit1)),
    hit_at_5: mean((s) => Number(s.hit5)),
    hit_at_10: mean((s) => Number(s.hit10)),
    mrr_at_10: mean((s) => s.rr10),
    ndcg_at_10: mean((s) => s.ndcg10),
    map: mean((s) => s.ap10),
    latency_ms: { p50: round(percentile(latenciesMs, 50), 2), p95: round(percentile(latenciesMs, 95), 2) },
  };
}

function round(x: number, places: number): number {
  const f = 10 ** places;
  return Math.round(x * f) / f;
}
