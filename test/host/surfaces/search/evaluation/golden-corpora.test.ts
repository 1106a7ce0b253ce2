import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../../../../support/gateway.js';

interface Corpus { kind: string; pkg: string; version: string; sha256: string; root: string }
const fetcher = (await import(pathToFileURL(path.join(ROOT, 'test/fixtures/golden/fetch-corpora.mjs')).href)) as {
  CORPORA: Record<string, Corpus>;
  corpus: (name: string) => string;
};

test('every foreign golden set has 40 or more questions, each answered by files its snapshot holds', () => {
  for (const name of Object.keys(fetcher.CORPORA)) {
    const dir = fetcher.corpus(name);
    const golden = JSON.parse(readFileSync(path.join(ROOT, `test/fixtures/golden/${name}.json`), 'utf8')) as Array<{ q: string; repo: string; expect_paths: string[] }>;
    assert.ok(golden.length >= 40, `${name}: ${golden.length} questions`);
    assert.equal(new Set(golden.map((g) => g.q)).size, golden.length, `${name}: a question repeats`);
    for (const g of golden) {
      assert.is(g.repo, name);
      for (const p of g.expect_paths) assert.ok(existsSync(path.join(dir, p)), `${name}: ${p} (for "${g.q}") is not in the snapshot`);
    }
  }
});

test('an archive whose sha256 differs from the pinned one is refused and leaves nothing behind', () => {
  const cache = tempDir('golden-cache-');
  const saved = { cache: process.env.SWITCHBOARD_GOLDEN_CACHE, sha: fetcher.CORPORA.markdownlint!.sha256 };
  process.env.SWITCHBOARD_GOLDEN_CACHE = cache;
  fetcher.CORPORA.markdownlint!.sha256 = '0'.repeat(64);
  try {
    assert.throws(() => fetcher.corpus('markdownlint'), /sha256 [0-9a-f]{64}, expected 0{64}/);
    assert.not.ok(existsSync(path.join(cache, `markdownlint-${fetcher.CORPORA.markdownlint!.version}`)));
  } finally {
    fetcher.CORPORA.markdownlint!.sha256 = saved.sha;
    if (saved.cache === undefined) delete process.env.SWITCHBOARD_GOLDEN_CACHE;
    else process.env.SWITCHBOARD_GOLDEN_CACHE = saved.cache;
    rmSync(cache, { recursive: true, force: true });
  }
});

test.run();
