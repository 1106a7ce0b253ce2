import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_CLASS_FACTORS, fuseRankings, type Candidate, type Scored } from '../../../../core/sdk/retrieval/index.js';

const chunk = (rowid: number, path: string, extra: Partial<Candidate> = {}): Candidate => ({ rowid, id: `c${rowid}`, path, symbol: null, language: 'typescript', text: '', bm25: 0, ...extra });
const scored = (c: Candidate, score: number): Scored => ({ ...c, score, signals: { bm25: 1 } });
const weights = { kDiv: 60, sparseWeight: 0.3, denseWeight: 0.7 };
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} != ${expected}`);

test('scores are weighted reciprocal ranks, summed over the same row ids', () => {
  const sparse = [scored(chunk(1, 'a.ts'), 0.9), scored(chunk(2, 'b.ts'), 0.8)];
  const dense = [chunk(2, 'b.ts', { cosine: 0.7 }), chunk(3, 'c.ts', { cosine: 0.6 })];
  const fused = fuseRankings(sparse, dense, weights);
  assert.equal(fused.map((f) => f.rowid), [2, 3, 1]);
  close(fused[0]!.score, 0.3 / 62 + 0.7 / 61, 'in both rankings');
  close(fused[1]!.score, 0.7 / 62, 'dense only');
  close(fused[2]!.score, 0.3 / 61, 'sparse only');
  assert.equal(fused[0]!.signals, { bm25: 1, sparse_rank: 2, sparse_score: 0.8, dense_rank: 1, cosine: 0.7 });
  assert.equal(fused[1]!.signals, { dense_rank: 2, cosine: 0.6, class: 1 });
  assert.equal(fused[2]!.signals, { bm25: 1, sparse_rank: 1, sparse_score: 0.9 });
});

test('the dense part carries the file-class factor, so code found by meaning still ranks over prose', () => {
  const dense = [chunk(1, 'docs/guide.md', { language: 'markdown', cosine: 0.9 }), chunk(2, 'src/guide.ts', { cosine: 0.8 })];
  const fused = fuseRankings([], dense, weights);
  assert.equal(fused.map((f) => f.path), ['src/guide.ts', 'docs/guide.md']);
  close(fused[1]!.score, (0.7 / 61) * FILE_CLASS_FACTORS.prose, 'prose at rank 1');
  assert.is(fused[1]!.signals.class, FILE_CLASS_FACTORS.prose);
});

test('the weights decide between the two rankings', () => {
  const sparse = [scored(chunk(1, 'a.ts'), 1)];
  const dense = [chunk(2, 'b.ts')];
  assert.is(fuseRankings(sparse, dense, { kDiv: 60, sparseWeight: 0.7, denseWeight: 0.3 })[0]!.rowid, 1);
  assert.is(fuseRankings(sparse, dense, { kDiv: 60, sparseWeight: 0.3, denseWeight: 0.7 })[0]!.rowid, 2);
});

test('equal fused scores go to the lower row number', () => {
  const fused = fuseRankings([scored(chunk(5, 'a.ts'), 1)], [chunk(3, 'b.ts')], { kDiv: 60, sparseWeight: 0.5, denseWeight: 0.5 });
  assert.is(fused[0]!.score, fused[1]!.score);
  assert.equal(fused.map((f) => f.rowid), [3, 5]);
});

test.run();
