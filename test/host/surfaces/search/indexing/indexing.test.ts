import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { unlinkSync } from 'node:fs';
import path from 'node:path';
import { removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { search, smallRepo, startRun, statusOf, waitForRun, writeRepoFile } from '../search-repo-fixture.js';

const demo = smallRepo();
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ demo }), REPO: 'demo' });
});
test.after(async () => {
  await gw.close();
  removeDir(demo);
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
    run_id: started.body.id,
    indexed_at: identifier.body.results[0].indexed_at,
    stale: false,
  });
  assert.ok(Date.parse(identifier.body.results[0].indexed_at) >= Date.parse(started.body.started_at), 'indexed during the run');
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
  assert.is(notJson.status, 400, 'malformed JSON is 400, as on every JSON route');
  const bare = await fetch(`${gw.url}/api/index/start`, { method: 'POST' });
  assert.is(bare.status, 202, 'no body at all starts the default repository');
  await waitForRun(gw.url, 'demo');
});

test.run();
