import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KeywordStore, type KeywordSettings } from '../../../../../host/surfaces/search/keywords/keyword-store.js';
import type { SourceText } from '../../../../../host/surfaces/search/keywords/keyword-builder.js';

const root = mkdtempSync(path.join(tmpdir(), 'switchboard-keywords-'));
let n = 0;

function setup(initial: Partial<KeywordSettings> = {}) {
  const dataDir = path.join(root, `d${n++}`);
  let settings: KeywordSettings = { maxPerRepo: 50, minFreq: 2, boost: 1.3, refreshHours: 24, ...initial };
  let now = Date.parse('2026-11-23T00:00:00Z');
  const repos: Record<string, SourceText[]> = {
    alpha: [
      { path: 'a.ts', text: 'dispatchFax dispatchFax retry' },
      { path: 'b.ts', text: 'dispatchFax retry' },
      { path: 'c.ts', text: 'render' },
      { path: 'd.ts', text: 'render page' },
      { path: 'e.ts', text: 'other' },
    ],
    beta: [
      { path: 'x.py', text: 'embedding vector' },
      { path: 'y.py', text: 'embedding' },
      { path: 'z.py', text: 'tokenizer' },
      { path: 'w.py', text: 'tokenizer' },
      { path: 'v.py', text: 'nothing' },
    ],
  };
  let walks = 0;
  const store = new KeywordStore({
    dataDir,
    readSettings: () => settings,
    sourceFiles: (repo) => {
      walks++;
      return repos[repo] ?? [];
    },
    now: () => new Date(now),
  });
  return {
    store,
    dataDir,
    repos,
    walks: () => walks,
    advanceHours: (h: number) => (now += h * 3_600_000),
    setSettings: (s: Partial<KeywordSettings>) => (settings = { ...settings, ...s }),
  };
}

test('keywords are written to a per-repository cache and the global repo → terms file', async () => {
  const s = setup();
  const alpha = await s.store.get('alpha');
  await s.store.get('beta');
  assert.ok(alpha.keywords.some((k) => k.term === 'dispatchfax'));
  assert.is(alpha.generated_at, '2026-11-23T00:00:00.000Z');
  const dir = path.join(s.dataDir, 'out/keywords');
  const cache = JSON.parse(readFileSync(path.join(dir, 'repos/alpha.json'), 'utf8'));
  assert.equal(cache.keywords, alpha.keywords);
  const global = JSON.parse(readFileSync(path.join(dir, 'discriminative_keywords.json'), 'utf8'));
  assert.equal(Object.keys(global).sort(), ['alpha', 'beta']);
  assert.equal(global.alpha, alpha.keywords.map((k) => k.term));
  assert.ok(global.beta.includes('embedding'));
  // atomic writes leave no temp files behind
  assert.not.ok(readdirSync(dir).some((f) => f.endsWith('.tmp')));
});

test('cached keywords are reused inside the refresh window and regenerated after it', async () => {
  const s = setup({ refreshHours: 24 });
  await s.store.get('alpha');
  assert.is(s.walks(), 1);
  s.advanceHours(23);
  await s.store.get('alpha');
  assert.is(s.walks(), 1, 'inside the window: no new walk');
  s.advanceHours(2);
  const again = await s.store.get('alpha');
  assert.is(s.walks(), 2, 'past the window: regenerated');
  assert.is(again.generated_at, '2026-11-24T01:00:00.000Z');
});

test('rebuild regenerates whatever the window says, and a new process reads the cache file', async () => {
  const s = setup();
  await s.store.get('alpha');
  s.repos.alpha!.push({ path: 'f.ts', text: 'render render' });
  const rebuilt = await s.store.rebuild('alpha');
  assert.is(s.walks(), 2);
  assert.is(rebuilt.files, 6);
  const fresh = new KeywordStore({ dataDir: s.dataDir, readSettings: () => ({ maxPerRepo: 50, minFreq: 2, boost: 1.3, refreshHours: 24 }), sourceFiles: () => { throw new Error('must not walk'); }, now: () => new Date('2026-11-23T01:00:00Z') });
  assert.equal((await fresh.get('alpha')).keywords, rebuilt.keywords);
});

test('settings are read once: a change applies only after reloadSettings', async () => {
  const s = setup({ maxPerRepo: 50 });
  await s.store.get('alpha');
  s.setSettings({ maxPerRepo: 1, boost: 2 });
  assert.is(s.store.settings().boost, 1.3, 'cached until reload');
  assert.ok((await s.store.get('alpha')).keywords.length > 1);
  assert.is(s.store.reloadSettings().boost, 2);
  // a cache built under other limits is stale once the new limits are in force
  assert.is((await s.store.get('alpha')).keywords.length, 1);
});

test('concurrent builds of one repository share one walk', async () => {
  const s = setup();
  await Promise.all([s.store.rebuild('alpha'), s.store.rebuild('alpha'), s.store.get('alpha')]);
  assert.is(s.walks(), 1);
});

test('ranking terms never wait for a build: empty at first, then the built keywords', async () => {
  const s = setup();
  const first = await s.store.termsForRanking('alpha');
  assert.is(first.size, 0);
  await s.store.rebuild('alpha'); // joins the background build
  assert.ok((await s.store.termsForRanking('alpha')).has('dispatchfax'));
  assert.ok(existsSync(path.join(s.dataDir, 'out/keywords/repos/alpha.json')));
});

test('drain waits for a background build to write its files', async () => {
  const dataDir = path.join(root, `d${n++}`);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const store = new KeywordStore({
    dataDir,
    readSettings: () => ({ maxPerRepo: 50, minFreq: 1, boost: 1.3, refreshHours: 24 }),
    // A slow repository walk: the build is still running when drain is called.
    async *sourceFiles() {
      await gate;
      yield { path: 'a.ts', text: 'dispatchFax retry' };
      yield { path: 'b.ts', text: 'dispatchFax render' };
    },
  });
  await store.termsForRanking('slow'); // starts the build in the background
  let drained = false;
  const draining = store.drain().then(() => (drained = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.is(drained, false, 'drain returned while the build was still walking');
  release();
  await draining;
  assert.ok(existsSync(path.join(dataDir, 'out/keywords/repos/slow.json')), 'the build had written its file when drain resolved');
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
