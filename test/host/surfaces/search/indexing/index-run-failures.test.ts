import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { bigRepo, search, smallRepo, startRun, statusOf, waitForRun, writeRepoFile } from '../search-repo-fixture.js';

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

test('one run per repository: a second start answers 409 naming the running run; another repository may index at once', async () => {
  const first = await startRun(gw.url, { repo: 'big' });
  assert.is(first.status, 202);
  const second = await startRun(gw.url, { repo: 'big' });
  assert.is(second.status, 409);
  assert.ok(second.body.detail.includes(first.body.id), second.body.detail);
  assert.is(second.body.code, 'index_run_running');
  const other = await startRun(gw.url, { repo: 'demo', enrich: true });
  assert.is(other.status, 202);
  // Progress is visible while it runs: counts move.
  const moving = await until(async () => {
    const s = await statusOf(gw.url, 'big');
    return s.run.state === 'running' && s.run.files_seen > 0 ? s : undefined;
  }, 60_000, 20);
  assert.is(moving.metadata.finished_at, null);
  assert.is(moving.status[moving.status.length - 1], 'Indexing in progress...');
  const enriched = await waitForRun(gw.url, 'demo');
  assert.ok(enriched.status.some((l: string) => l.startsWith('Enriching chunks with summaries and keywords')));
  const done = await waitForRun(gw.url, 'big');
  assert.is(done.run.state, 'finished', done.status.join('\n'));
  assert.is(done.run.files_seen, 600);
});

test('SIGKILL of the indexer child fails the run with the reason, the last good index keeps answering, and the next start works', async () => {
  writeRepoFile(big, 'src/part0/extra.ts', 'export const killedRunMarker = 1;\n');
  for (let i = 0; i < 600; i += 7) writeRepoFile(big, `src/part${i % 50}/module${i}.ts`, `export const changed${i} = ${i};\n`);
  const started = await startRun(gw.url, { repo: 'big' });
  assert.is(started.status, 202);
  const pid = await until(() => gw.gateway.surfaces.search.runs.childPid(started.body.id), 60_000, 5);
  await until(async () => (await statusOf(gw.url, 'big')).run.files_seen > 0, 60_000, 5);
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

test('a gateway stopped mid-run leaves the run interrupted, never finished, and the next start works', async () => {
  const dataDir = tempDir();
  const repo = bigRepo();
  const env = { REPOS: JSON.stringify({ big: repo }), REPO: 'big' };
  const first = await startGateway(env, { dataDir });
  const started = await startRun(first.url);
  await until(async () => (await statusOf(first.url, 'big')).run.files_seen > 0, 60_000, 5);
  const pid = first.gateway.surfaces.search.runs.childPid(started.body.id)!;
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
