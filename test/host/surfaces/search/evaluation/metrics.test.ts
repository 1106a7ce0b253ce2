import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { averagePrecisionAt, distinctPaths, firstHitRank, hitAt, ndcgAt, percentile, reciprocalRankAt, scoreQuestion, summarize } from '../../../../../host/surfaces/search/evaluation/metrics.js';

const ranked = ['docs/readme.md', 'core/kernel/kernel.ts', 'core/kernel/reload-queue.ts', 'test/core/kernel/reload-queue.test.ts'];

test('a hit is a path containing one of the expected substrings, ranked from 1', () => {
  assert.is(firstHitRank(ranked, ['reload-queue']), 3);
  assert.is(firstHitRank(ranked, ['nothing-like-this']), 0);
  assert.is(firstHitRank(ranked, ['kernel.ts', 'readme']), 1);
});

test('hit@k counts only the first k paths', () => {
  assert.is(hitAt(ranked, ['reload-queue'], 1), false);
  assert.is(hitAt(ranked, ['reload-queue'], 2), false);
  assert.is(hitAt(ranked, ['reload-queue'], 3), true);
  assert.is(hitAt(ranked, ['absent'], 10), false);
});

test('reciprocal rank is 1/rank of the first hit, 0 beyond the cut-off', () => {
  assert.is(reciprocalRankAt(ranked, ['reload-queue'], 10), 1 / 3);
  assert.is(reciprocalRankAt(ranked, ['reload-queue'], 2), 0);
});

test('nDCG@10 is 1 for a perfect ranking and 1/log2(rank+1) for a single expected file', () => {
  assert.is(ndcgAt(['a.ts', 'b.ts'], ['a.ts'], 10), 1);
  assert.ok(Math.abs(ndcgAt(ranked, ['reload-queue.ts'], 10) - 1 / Math.log2(4)) < 1e-12);
  // two expected files, only the second found at rank 2: dcg = 1/log2(3), idcg = 1 + 1/log2(3)
  const two = ndcgAt(['x', 'b.ts'], ['a.ts', 'b.ts'], 10);
  assert.ok(Math.abs(two - 1 / Math.log2(3) / (1 + 1 / Math.log2(3))) < 1e-12);
});

test('each expected substring is credited once: a second file matching it is no extra gain', () => {
  // both test and source match "reload-queue", but only one file was expected
  assert.is(ndcgAt(ranked, ['reload-queue'], 10), ndcgAt(ranked.slice(0, 3), ['reload-queue'], 10));
  assert.is(averagePrecisionAt(ranked, ['reload-queue'], 10), 1 / 3);
});

test('average precision averages precision at each credited hit over the expected files', () => {
  // hits at 1 and 3: (1/1 + 2/3) / 2
  assert.ok(Math.abs(averagePrecisionAt(['a', 'x', 'b'], ['a', 'b'], 10) - (1 + 2 / 3) / 2) < 1e-12);
  assert.is(averagePrecisionAt(['x', 'y'], ['a'], 10), 0);
});

test('paths are judged once per file: duplicates collapse to their first rank', () => {
  assert.equal(distinctPaths(['a', 'a', 'b', 'a', 'c']), ['a', 'b', 'c']);
});

test('percentiles use the nearest rank', () => {
  const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.is(percentile(values, 50), 5);
  assert.is(percentile(values, 95), 10);
  assert.is(percentile([42], 95), 42);
  assert.is(percentile([], 50), 0);
});

test('a summary averages every metric over the questions', () => {
  const a = scoreQuestion(['hit.ts'], ['hit.ts']);
  const b = scoreQuestion(['x', 'y', 'z', 'w', 'v', 'hit.ts'], ['hit.ts']);
  const c = scoreQuestion(['x'], ['hit.ts']);
  const s = summarize([a, b, c], [1, 2, 30]);
  assert.is(s.questions, 3);
  assert.is(s.hit_at_1, 0.3333);
  assert.is(s.hit_at_5, 0.3333);
  assert.is(s.hit_at_10, 0.6667);
  assert.is(s.mrr_at_10, Math.round(((1 + 1 / 6) / 3) * 1e4) / 1e4);
  assert.equal(s.latency_ms, { p50: 2, p95: 30 });
  assert.is(b.rank, 6);
  assert.is(c.rank, 0);
});

test.run();
