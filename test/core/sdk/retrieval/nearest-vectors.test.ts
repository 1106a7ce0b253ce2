import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkHit, cosineTopK, storedVector, vectorBytes } from '../../../../core/sdk/retrieval/index.js';

test('vectors round-trip through their float32 bytes with their norm', () => {
  const v = storedVector(7, vectorBytes([3, 4]));
  assert.equal([...v.vector], [3, 4]);
  assert.is(v.norm, 5);
  assert.is(v.rowid, 7);
});

test('cosineTopK ranks by cosine, breaks ties by the lower row and skips other dimensions', () => {
  const vectors = [storedVector(3, vectorBytes([1, 0])), storedVector(1, vectorBytes([2, 0])), storedVector(2, vectorBytes([0, 1])), storedVector(4, vectorBytes([1, 0, 0]))];
  const top = cosineTopK(vectors, [1, 0], 3);
  assert.equal(top.map((t) => t.rowid), [1, 3, 2]);
  assert.is(top[0]!.cosine, 1);
  assert.is(top[2]!.cosine, 0);
});

test('chunkHit puts the columns back in metadata next to the stored JSON, score rounded', () => {
  const scored = { rowid: 1, id: 'a#1', path: 'a.ts', symbol: null, language: 'typescript', text: 't', bm25: 1, score: 0.12345678, signals: { bm25: 1 } };
  const hit = chunkHit(scored, { id: 'a#1', text: 't', path: 'a.ts', language: 'typescript', start_line: 1, end_line: 3, symbol: null, kind: null, metadata: '{"repo":"x"}' });
  assert.equal(hit, { id: 'a#1', score: 0.123457, text: 't', metadata: { repo: 'x', path: 'a.ts', language: 'typescript', start_line: 1, end_line: 3 }, signals: { bm25: 1 } });
});

test.run();
