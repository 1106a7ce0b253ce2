import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { search, smallRepo, startRun, waitForRun, writeRepoFile } from '../search-repo-fixture.js';

// Fresh results (hits say which run indexed them and whether their file moved since) and the
// stat cache of reindexing (what it may skip without reading, and what it must not).
const demo = smallRepo();
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ demo }), REPO: 'demo' });
});
test.after(async () => {
  await gw.close();
  removeDir(demo);
});

async function indexed(): Promise<any> {
  const started = await startRun(gw.url, { repo: 'demo' });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.run.state, 'finished', status.status.join('\n'));
  return status.run;
}

async function rag(question: string): Promise<any> {
  const res = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
  assert.is(res.status, 200);
  return json(res);
}

const HEADER = 'src/http/header-parser.ts';
const QUEUE = 'core/kernel/reload-queue.ts';

test('hits carry their run and indexed_at; a changed or removed file makes its hits stale, and answers citing it say so', async () => {
  const first = await indexed();
  const hit = (await search(gw.url, { q: 'parseHttpHeader' })).body.results[0];
  assert.is(hit.path, HEADER);
  assert.is(hit.run_id, first.id);
  assert.is(hit.stale, false);
  assert.ok(Date.parse(hit.indexed_at) >= Date.parse(first.started_at));

  // The file changes after the run: its hit is stale (a stat, no reindex), other files' hits are not.
  writeRepoFile(demo, HEADER, `${readFileSync(path.join(demo, HEADER), 'utf8')}// a later edit\n`);
  const changed = (await search(gw.url, { q: 'parseHttpHeader' })).body.results[0];
  assert.is(changed.path, HEADER);
  assert.is(changed.stale, true);
  assert.is((await search(gw.url, { q: 'ReloadQueue coalesce' })).body.results[0].stale, false);
  const answer = await rag('where is parseHttpHeader');
  const cited = answer.citations.find((c: any) => c.path === HEADER);
  assert.ok(cited, JSON.stringify(answer.citations));
  assert.is(cited.stale, true);
  assert.is(answer.stale, true);
  assert.ok(answer.notes.some((n: string) => n.includes('changed or was removed since it was indexed') && n.includes(HEADER)), JSON.stringify(answer.notes));

  // A removed file: stale too.
  unlinkSync(path.join(demo, QUEUE));
  assert.is((await search(gw.url, { q: 'ReloadQueue coalesce' })).body.results.find((r: any) => r.path === QUEUE)?.stale, true);

  // The next run re-chunks the changed file (new run id) and keeps the untouched files' chunks (old run id).
  const second = await indexed();
  assert.is(second.files_changed, 1);
  assert.is(second.files_removed, 1);
  const again = (await search(gw.url, { q: 'parseHttpHeader' })).body.results[0];
  assert.is(again.stale, false);
  assert.is(again.run_id, second.id);
  const python = (await search(gw.url, { q: 'mask_phone_number' })).body.results[0];
  assert.is(python.path, 'src/phone.py');
  assert.is(python.run_id, first.id, 'an unchanged file keeps the chunks of the run that wrote them');
  const fresh = await rag('where is parseHttpHeader');
  assert.is(fresh.stale, undefined);
  assert.ok(!(fresh.notes ?? []).some((n: string) => n.includes('since it was indexed')));
});

// Whole seconds: utimes keeps them exactly, so a stamp can be put back as it was.
const SECOND = Math.floor(Date.now() / 1000) - 3600;

test('reindex skips files by stamp, but a file edited inside a directory whose mtime did not move is read again', async () => {
  const file = path.join(demo, 'src/phone.py');
  const dir = path.dirname(file);
  utimesSync(dir, SECOND, SECOND);
  await indexed();
  const same = await indexed();
  assert.is(same.files_changed, 0, 'nothing changed: nothing read');
  assert.is(same.kind, 'unchanged', 'ended before any child started');
  // Same size, new content, and the directory's mtime put back: only the file's own stamp says it changed.
  const before = readFileSync(file, 'utf8');
  writeFileSync(file, before.replace('last four', 'last FOUR'));
  utimesSync(dir, SECOND, SECOND);
  assert.is(statSync(dir).mtimeMs, SECOND * 1000);
  const run = await indexed();
  assert.is(run.files_changed, 1);
  assert.is(run.kind, 'incremental');
  const hit = (await search(gw.url, { q: 'mask_phone_number' })).body.results[0];
  assert.match(hit.snippet, /last FOUR/);
  assert.is(hit.run_id, run.id);
});

test('a file replaced by rename with the same size and mtime is read again (its inode moved)', async () => {
  const file = path.join(demo, 'src/phone.py');
  utimesSync(file, SECOND + 7, SECOND + 7);
  await indexed();
  const old = statSync(file);
  const temp = path.join(demo, 'src/phone.py.tmp');
  writeFileSync(temp, readFileSync(file, 'utf8').replace('Masks', 'Hides'));
  utimesSync(temp, SECOND + 7, SECOND + 7);
  renameSync(temp, file);
  const now = statSync(file);
  assert.is(now.size, old.size);
  assert.is(now.mtimeMs, old.mtimeMs);
  assert.is.not(now.ino, old.ino);
  const run = await indexed();
  assert.is(run.files_changed, 1);
  assert.match((await search(gw.url, { q: 'mask_phone_number' })).body.results[0].snippet, /Hides every digit/);
});

test('a file touched without a content change is chunked again, so its hits are not stale', async () => {
  await indexed();
  const file = path.join(demo, 'src/phone.py');
  const later = new Date(Date.now() + 60_000);
  utimesSync(file, later, later);
  assert.is((await search(gw.url, { q: 'mask_phone_number' })).body.results[0].stale, true);
  const run = await indexed();
  assert.is(run.files_changed, 1);
  const hit = (await search(gw.url, { q: 'mask_phone_number' })).body.results[0];
  assert.is(hit.stale, false);
  assert.is(hit.run_id, run.id);
});

test('a no-change run ends without the indexer child, with its own status line; an added, renamed or removed file still runs it', async () => {
  await indexed();
  const started = await startRun(gw.url, { repo: 'demo' });
  assert.is(started.status, 202);
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.run.id, started.body.id);
  assert.is(status.run.state, 'finished');
  assert.is(status.run.kind, 'unchanged');
  assert.equal(status.status, [
    'Indexing started...',
    'Indexing repository: demo',
    'Nothing changed since the last run: every file has the size, mtime and inode it was indexed with; none was read',
    'Files: 4 seen, 0 changed, 0 removed, 0 skipped',
    'Chunks: 0 written',
    'Vectors: none (EMBEDDING_MODEL is not set; BM25 alone answers)',
    status.status[6],
  ]);
  assert.match(status.status[6], /^Indexing completed in \d+\.\d s$/);
  assert.ok(status.metadata.finished_at);
  // Hits keep the run that wrote them: a no-change run wrote nothing.
  assert.is.not((await search(gw.url, { q: 'mask_phone_number' })).body.results[0].run_id, started.body.id);

  writeRepoFile(demo, 'src/added.ts', 'export const freshlyAddedConstant = 1;\n');
  const added = await indexed();
  assert.equal([added.kind, added.files_changed, added.files_removed], ['incremental', 1, 0]);
  assert.is((await search(gw.url, { q: 'freshlyAddedConstant' })).body.results[0].path, 'src/added.ts');
  renameSync(path.join(demo, 'src/added.ts'), path.join(demo, 'src/renamed.ts'));
  const renamed = await indexed();
  assert.equal([renamed.kind, renamed.files_changed, renamed.files_removed], ['incremental', 1, 1]);
  assert.is((await search(gw.url, { q: 'freshlyAddedConstant' })).body.results[0].path, 'src/renamed.ts');
  unlinkSync(path.join(demo, 'src/renamed.ts'));
  const removed = await indexed();
  assert.equal([removed.kind, removed.files_changed, removed.files_removed], ['incremental', 0, 1]);
  assert.is((await indexed()).kind, 'unchanged');
});

test.run();
