import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { removeDir, startGateway, tempDir, until, type TestGateway } from '../../support/gateway.js';
import { bigRepo, search, smallRepo, startRun, statusOf, waitForRun, writeRepoFile } from './search-repo-fixture.js';

const demo = smallRepo();
const big = bigRepo();
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ demo, big }), REPO: 'demo' });
});
test.after(async () => {
  await gw.close();
  removeDir(demo);
  removeDir(big);
});

test('a run starts with 202, reports ordered status lines and makes the repository searchable by relative path', async () => {
  const before = await statusOf(gw.url, 'demo');
  assert.equal(before.metadata, { repo: 'demo', started_at: null, finished_at: null });
  const started = await startRun(gw.url);
  assert.is(started.status, 202);
  assert.is(started.body.repo, 'demo');
  assert.match(started.body.started_at, /^\d{4}-\d\d-\d\dT/);
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.metadata.started_at, started.body.started_at);
  assert.is(status.status[0], 'Indexing started...');
  assert.is(status.status[1], 'Indexing repository: demo');
  assert.ok(status.status.includes('Files: 5 seen, 5 changed, 0 removed, 0 skipped'), status.status.join('\n'));
  assert.ok(status.status.includes('Vectors: none (EMBEDDING_MODEL is not set; BM25 alone answers)'));
  assert.match(status.status[status.status.length - 1], /^Indexing completed in /);
  assert.is(status.run.state, 'finished');
  assert.is(status.run.kind, 'full');

  const question = await search(gw.url, { q: 'where is the reload queue coalesced' });
  assert.is(question.status, 200);
  assert.is(question.body.results[0].path, 'core/kernel/reload-queue.ts');
  assert.is(question.body.top_k, 10);
  const identifier = await search(gw.url, { q: 'parseHttpHeader', top_k: '2' });
  assert.equal(identifier.body.results[0], {
    score: identifier.body.results[0].score,
    path: 'src/http/header-parser.ts',
    start_line: 1,
    end_line: 4,
    snippet: identifier.body.results[0].snippet,
  });
  assert.ok(identifier.body.results.length <= 2);
  const python = await search(gw.url, { q: 'which code masks phone numbers' });
  assert.is(python.body.results[0].path, 'src/phone.py');
  const ignored = await search(gw.url, { q: 'ignoredSecretToken' });
  assert.ok(ignored.body.results.every((r: any) => !r.path.startsWith('secrets/')), '.gitignore honoured');
});

test('a reindex re-chunks only changed files and removed files leave the index', async () => {
  writeRepoFile(demo, 'src/http/header-parser.ts', 'export function parseHttpHeaderStrict(line: string) {\n  return line;\n}\n');
  writeRepoFile(demo, 'src/new-file.ts', 'export const brandNewFeatureFlag = true;\n');
  unlinkSync(path.join(demo, 'src/phone.py'));
  assert.is((await startRun(gw.url, { repo: 'demo' })).status, 202);
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.run.kind, 'incremental');
  assert.is(status.run.files_changed, 2, status.status.join('\n'));
  assert.is(status.run.files_removed, 1);
  assert.is((await search(gw.url, { q: 'brandNewFeatureFlag' })).body.results[0].path, 'src/new-file.ts');
  const gone = await search(gw.url, { q: 'mask_phone_number' });
  assert.ok(gone.body.results.every((r: any) => r.path !== 'src/phone.py'));
  // Nothing changed: nothing is re-chunked.
  await startRun(gw.url, {});
  const again = await waitForRun(gw.url, 'demo');
  assert.is(again.run.files_changed, 0);
  assert.is(again.run.files_seen, 5);
});

test('one run per repository: a second start answers 409 naming the running run; another repository may index at once', async () => {
  const first = await startRun(gw.url, { repo: 'big' });
  assert.is(first.status, 202);
  const second = await startRun(gw.url, { repo: 'big' });
  assert.is(second.status, 409);
  assert.ok(second.body.detail.includes(first.body.id), second.body.detail);
  assert.is(second.body.code, 'conflict');
  const other = await startRun(gw.url, { repo: 'demo', enrich: true });
  assert.is(other.status, 202);
  // Progress is visible while it runs: counts move.
  const moving = await until(async () => {
    const s = await statusOf(gw.url, 'big');
    return s.run.state === 'running' && s.run.files_seen > 0 ? s : undefined;
  }, 30_000, 20);
  assert.is(moving.metadata.finished_at, null);
  assert.is(moving.status[moving.status.length - 1], 'Indexing in progress...');
  const enriched = await waitForRun(gw.url, 'demo');
  assert.ok(enriched.status.some((l: string) => l.startsWith('Enriching chunks with summaries and keywords')));
  const done = await waitForRun(gw.url, 'big');
  assert.is(done.run.state, 'finished', done.status.join('\n'));
  assert.is(done.run.files_seen, 1200);
});

test('SIGKILL of the indexer child fails the run with the reason, the last good index keeps answering, and the next start works', async () => {
  writeRepoFile(big, 'src/part0/extra.ts', 'export const killedRunMarker = 1;\n');
  for (let i = 0; i < 1200; i += 7) writeRepoFile(big, `src/part${i % 50}/module${i}.ts`, `export const changed${i} = ${i};\n`);
  const started = await startRun(gw.url, { repo: 'big' });
  assert.is(started.status, 202);
  const pid = await until(() => gw.gateway.codeSearch.runs.childPid(started.body.id), 10_000, 5);
  await until(async () => (await statusOf(gw.url, 'big')).run.files_seen > 0, 10_000, 5);
  process.kill(pid, 'SIGKILL');
  const failed = await waitForRun(gw.url, 'big');
  assert.is(failed.run.state, 'failed');
  assert.match(failed.status[failed.status.length - 1], /^Indexing failed: the indexer process was killed \(SIGKILL\)/);
  const stillOld = await search(gw.url, { q: 'handler0_1', repo: 'big', top_k: '50' });
  assert.ok(stillOld.body.results.some((r: any) => r.path === 'src/part0/module0.ts'), 'the killed run published nothing');
  assert.is((await search(gw.url, { q: 'killedRunMarker', repo: 'big' })).body.results.filter((r: any) => r.path === 'src/part0/extra.ts').length, 0);
  assert.is((await startRun(gw.url, { repo: 'big' })).status, 202);
  const next = await waitForRun(gw.url, 'big');
  assert.is(next.run.state, 'finished');
  assert.is((await search(gw.url, { q: 'killedRunMarker', repo: 'big' })).body.results[0].path, 'src/part0/extra.ts');
});

test('repository names: unknown is 404, a path or anything but a plain name is 422, and no request chooses a directory', async () => {
  assert.is((await startRun(gw.url, { repo: 'nope' })).status, 404);
  assert.match((await startRun(gw.url, { repo: 'nope' })).body.detail, /no repository named "nope"/);
  for (const bad of ['../x', '/etc', 'a/b', '..', '']) {
    const started = await startRun(gw.url, { repo: bad });
    assert.is(started.status, 422, `start ${bad}`);
    assert.match(started.body.detail, /repo/);
    assert.is((await search(gw.url, { q: 'x', repo: bad })).status, 422, `search ${bad}`);
    assert.is((await fetch(`${gw.url}/api/index/status?repo=${encodeURIComponent(bad)}`)).status, 422, `status ${bad}`);
  }
  assert.is((await search(gw.url, { q: 'x', repo: 'nope' })).status, 404);
  const extra = await startRun(gw.url, { repo: 'demo', dir: '/etc' });
  assert.is(extra.status, 422, 'unknown body keys are refused');
  const notJson = await fetch(`${gw.url}/api/index/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
  assert.is(notJson.status, 422);
  const bare = await fetch(`${gw.url}/api/index/start`, { method: 'POST' });
  assert.is(bare.status, 202, 'no body at all starts the default repository');
  await waitForRun(gw.url, 'demo');
});

test('a gateway stopped mid-run leaves the run interrupted, never finished, and the next start works', async () => {
  const dataDir = tempDir();
  const repo = bigRepo();
  const env = { REPOS: JSON.stringify({ big: repo }), REPO: 'big' };
  const first = await startGateway(env, { dataDir });
  const started = await startRun(first.url);
  await until(async () => (await statusOf(first.url, 'big')).run.files_seen > 0, 10_000, 5);
  const pid = first.gateway.codeSearch.runs.childPid(started.body.id)!;
  await first.gateway.close();
  assert.throws(() => process.kill(pid, 0), 'the indexer child is gone with its gateway');
  const second = await startGateway(env, { dataDir });
  try {
    const status = await statusOf(second.url, 'big');
    assert.is(status.run.id, started.body.id);
    assert.is(status.run.state, 'interrupted');
    assert.match(status.status[status.status.length - 1], /^Indexing interrupted: /);
    assert.ok(status.metadata.finished_at);
    assert.is((await startRun(second.url)).status, 202);
    assert.is((await waitForRun(second.url, 'big')).run.state, 'finished');
  } finally {
    await second.close();
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
