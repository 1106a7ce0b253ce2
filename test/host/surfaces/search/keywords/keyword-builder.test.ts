import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildKeywords } from '../../../../../host/surfaces/search/keywords/keyword-builder.js';
import { identifierTerms, splitIdentifier } from '../../../../../host/surfaces/search/keywords/identifier-terms.js';

test('identifiers split at camelCase, snake_case and kebab-case and are also kept whole', () => {
  assert.equal(splitIdentifier('parseHttpHeader'), ['parse', 'http', 'header']);
  assert.equal(splitIdentifier('MAX_RETRY_COUNT'), ['max', 'retry', 'count']);
  assert.equal(splitIdentifier('XMLParser'), ['xml', 'parser']);
  assert.equal(identifierTerms('const reloadQueue = new ReloadQueue();'), ['reloadqueue', 'reload', 'queue', 'reloadqueue', 'reload', 'queue']);
});

test('common words and very short tokens are not terms', () => {
  assert.equal(identifierTerms('if (x) return the value of it'), ['value']);
});

function corpus() {
  // "fax" is in 3 of 8 files, "phone" in 2, "shared" in all 8.
  const files = [];
  for (let i = 0; i < 8; i++) {
    let text = `shared sharedThing${i} `;
    if (i < 3) text += 'faxJob faxJob fax ';
    if (i < 2) text += 'phone ';
    files.push({ path: `f${i}.ts`, text });
  }
  return files;
}

test('keywords are scored tf × ln(N / (1 + df)) and must appear in MIN_FREQ files, best first', async () => {
  const { keywords, files } = await buildKeywords(corpus(), { maxPerRepo: 50, minFreq: 2 });
  assert.is(files, 8);
  const byTerm = Object.fromEntries(keywords.map((k) => [k.term, k]));
  assert.is(byTerm.fax!.df, 3);
  assert.is(byTerm.fax!.tf, 9);
  assert.is(byTerm.fax!.score, Math.round(9 * Math.log(8 / 4) * 1000) / 1000);
  assert.ok(byTerm.phone, 'df 2 meets MIN_FREQ 2');
  assert.not.ok(byTerm.shared, 'a term in every file is not discriminative');
  assert.not.ok(byTerm.sharedthing0, 'a term of one file is under MIN_FREQ');
  assert.equal(keywords.map((k) => k.score), [...keywords.map((k) => k.score)].sort((a, b) => b - a));
});

test('MIN_FREQ and MAX_PER_REPO limit the list', async () => {
  const strict = await buildKeywords(corpus(), { maxPerRepo: 50, minFreq: 3 });
  assert.not.ok(strict.keywords.some((k) => k.term === 'phone'));
  const top1 = await buildKeywords(corpus(), { maxPerRepo: 1, minFreq: 2 });
  assert.is(top1.keywords.length, 1);
  assert.is(top1.keywords[0]!.term, 'fax');
});

test.run();
