import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sparseMatchTerms } from '../../../../core/sdk/retrieval/index.js';

const names = (xs: Array<{ t: string }>) => xs.map((x) => x.t);

test('terms the collection lacks are dropped and the rest come rarest first', () => {
  assert.equal(names(sparseMatchTerms([{ t: 'b', df: 9 }, { t: 'gone', df: 0 }, { t: 'a', df: 2 }], 100)), ['a', 'b']);
});

test('a term in over 5% and over 5,000 of the chunks is left out; under either bound it stays', () => {
  const total = 200_000;
  const counted = [{ t: 'common', df: 20_000 }, { t: 'share', df: 9_000 }, { t: 'rare', df: 40 }];
  assert.equal(names(sparseMatchTerms(counted, total)), ['rare', 'share']);
  // In a small collection a term in most chunks is still cheap: it stays.
  assert.equal(names(sparseMatchTerms([{ t: 'everywhere', df: 900 }], 1000)), ['everywhere']);
});

test('a query made only of common terms keeps its two rarest', () => {
  const counted = [{ t: 'x', df: 90_000 }, { t: 'y', df: 60_000 }, { t: 'z', df: 70_000 }];
  assert.equal(names(sparseMatchTerms(counted, 100_000)), ['y', 'z']);
});

test.run();
