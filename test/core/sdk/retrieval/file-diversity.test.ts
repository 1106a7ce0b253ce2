import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_DECAY, MAX_PER_FILE, diversifyByFile, type Scored } from '../../../../core/sdk/retrieval/index.js';

const hit = (rowid: number, path: string | null, score: number): Scored => ({ rowid, id: `c${rowid}`, path, symbol: null, language: null, text: '', bm25: 0, score, signals: {} });

test('later chunks of a file decay, at most MAX_PER_FILE stay, and the list is re-sorted', () => {
  assert.is(FILE_DECAY, 0.5);
  assert.is(MAX_PER_FILE, 3);
  const ranked = [hit(1, 'big.ts', 1), hit(2, 'big.ts', 0.9), hit(3, 'big.ts', 0.8), hit(4, 'big.ts', 0.7), hit(5, 'small.ts', 0.6)];
  const out = diversifyByFile(ranked, 10);
  assert.equal(out.map((h) => [h.rowid, h.score]), [[1, 1], [5, 0.6], [2, 0.45], [3, 0.2]]);
  assert.equal(out.map((h) => h.signals.file_decay), [undefined, undefined, 0.5, 0.25]);
});

test('the cut to top_k comes after decay, and chunks without a path are told apart by id', () => {
  const ranked = [hit(1, null, 1), hit(2, null, 0.9), hit(3, 'a.ts', 0.5)];
  assert.equal(diversifyByFile(ranked, 2).map((h) => h.rowid), [1, 2]);
  const sameFile = [hit(1, 'a.ts', 1), hit(2, 'a.ts', 0.9), hit(3, 'b.ts', 0.5)];
  assert.equal(diversifyByFile(sameFile, 2).map((h) => h.rowid), [1, 3]);
});

test('equal scores after decay go to the lower row number', () => {
  const ranked = [hit(7, 'a.ts', 0.5), hit(3, 'b.ts', 0.5)];
  assert.equal(diversifyByFile(ranked, 2).map((h) => h.rowid), [3, 7]);
});

test.run();
