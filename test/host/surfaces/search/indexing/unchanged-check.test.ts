import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nothingChanged } from '../../../../../host/surfaces/search/indexing/indexer/unchanged-check.js';
import { walkRepositorySync, type DirListing } from '../../../../../host/surfaces/search/indexing/indexer/file-walk.js';
import { readStamps, stampsFile, writeStamps, type Stamp } from '../../../../../host/surfaces/search/indexing/indexer/file-stamps.js';
import type { IndexJob } from '../../../../../host/surfaces/search/indexing/indexer/protocol.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';
import { codeIndexFile, openCodeIndexDb } from '../../../../../host/surfaces/search/code-index/code-index-db.js';
import { smallRepo, writeRepoFile } from '../search-repo-fixture.js';

// The no-change check before a run spawns its child: any change must send the run to the child.
const repo = smallRepo();
const dataDir = tempDir('unchanged-data-');
test.after(() => {
  removeDir(repo);
  removeDir(dataDir);
});

const job = { runId: 'r', repo: 'demo', repoDir: repo, enrich: false, maxFileBytes: 1 << 20, chunk: { size: 1000, overlap: 100 }, backend: { pluginId: 'retrieval-sqlite', manifestPath: '', configStorePath: '', dataDir, packageRoot: '' } } satisfies IndexJob;
const SECOND = Math.floor(Date.now() / 1000) - 3600;

/** Stamps every file as the last committed run would have (and the directory listings, all old). */
async function stampAll(backend = 'retrieval-sqlite'): Promise<number> {
  for (const dir of ['', 'src', 'src/http', 'core', 'core/kernel', 'docs']) utimesSync(path.join(repo, dir), SECOND, SECOND);
  const dirs = new Map<string, DirListing>();
  const walked = walkRepositorySync(repo, { maxBytes: job.maxFileBytes, listings: { previous: new Map(), next: dirs, startedMs: Date.now() } });
  const files = new Map<string, Stamp>(walked.files.map((f) => [f.rel, [f.size, f.mtimeMs, `hash-${f.rel}`, f.ino]]));
  await writeStamps(stampsFile(dataDir, 'demo'), { files, dirs, backend });
  // The code index the same run committed.
  openCodeIndexDb(codeIndexFile(dataDir, 'demo')).close();
  return files.size;
}

test('nothing changed: the counts of a run that read nothing; the backend and its source count must agree', async () => {
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'no stat cache: the child runs');
  const n = await stampAll();
  assert.is(n, 5);
  assert.equal(await nothingChanged(job, { sources: 5, vectors: 3 }), { files_seen: 5, files_changed: 0, files_removed: 0, files_skipped: 0, chunks: 0, vectors: 3 });
  assert.is(await nothingChanged(job, { sources: 4, vectors: 0 }), undefined, 'the index lost a source');
  removeDir(path.join(dataDir, 'code-index'));
  assert.is(await nothingChanged(job, { sources: 5, vectors: 3 }), undefined, 'no code index yet: the child builds it');
  await stampAll();
  assert.is(await nothingChanged(job, { sources: 0, vectors: 0 }), undefined, 'the index was wiped');
  assert.is(await nothingChanged({ ...job, backend: { ...job.backend, pluginId: 'retrieval-postgres' } }, { sources: 5, vectors: 0 }), undefined, 'stamps of another backend');
  await stampAll('retrieval-postgres');
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'stamps written for another backend');
  await writeStamps(stampsFile(dataDir, 'demo'), { files: new Map(), dirs: new Map() });
  assert.is(await nothingChanged(job, { sources: 0, vectors: 0 }), undefined, 'an empty cache proves nothing');
});

test('a file edited in place inside a directory whose mtime was put back is a change', async () => {
  await stampAll();
  const file = path.join(repo, 'src/phone.py');
  writeFileSync(file, readFileSync(file, 'utf8').replace('last four', 'last FOUR'));
  utimesSync(path.dirname(file), SECOND, SECOND);
  assert.is(statSync(path.dirname(file)).mtimeMs, SECOND * 1000);
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined);
});

test('a file added, removed or renamed is a change', async () => {
  await stampAll();
  writeRepoFile(repo, 'src/added.ts', 'export const added = 1;\n');
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'added');
  unlinkSync(path.join(repo, 'src/added.ts'));
  assert.ok(await nothingChanged(job, { sources: 5, vectors: 0 }), 'back as stamped');
  await stampAll();
  unlinkSync(path.join(repo, 'docs/guide.md'));
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'removed');
  assert.is(await nothingChanged(job, { sources: 4, vectors: 0 }), undefined, 'removed, whatever the index says');
  writeRepoFile(repo, 'docs/guide.md', '# Guide\n\n## Reload\nThe reload queue is described in the kernel.\n');
  await stampAll();
  renameSync(path.join(repo, 'docs/guide.md'), path.join(repo, 'docs/handbook.md'));
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'renamed');
  // Renamed with the directory's mtime put back: the recorded listing is believed, the stat of the old name fails.
  utimesSync(path.join(repo, 'docs'), SECOND, SECOND);
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined, 'renamed, directory mtime put back');
  renameSync(path.join(repo, 'docs/handbook.md'), path.join(repo, 'docs/guide.md'));
});

test('a file replaced by rename with the same size and mtime is a change (its inode moved)', async () => {
  const file = path.join(repo, 'src/phone.py');
  utimesSync(file, SECOND + 7, SECOND + 7);
  await stampAll();
  const old = statSync(file);
  const temp = path.join(repo, 'src/phone.py.tmp');
  writeFileSync(temp, readFileSync(file, 'utf8').replace('Masks', 'Hides'));
  utimesSync(temp, SECOND + 7, SECOND + 7);
  renameSync(temp, file);
  utimesSync(path.dirname(file), SECOND, SECOND);
  const now = statSync(file);
  assert.is(now.size, old.size);
  assert.is(now.mtimeMs, old.mtimeMs);
  assert.is.not(now.ino, old.ino);
  assert.is(await nothingChanged(job, { sources: 5, vectors: 0 }), undefined);
});

test('directory listings that became old enough are recorded by the check, as the child would', async () => {
  await stampAll();
  const file = stampsFile(dataDir, 'demo');
  const cache = await readStamps(file);
  cache.dirs.delete('docs');
  await writeStamps(file, cache);
  assert.ok(await nothingChanged(job, { sources: 5, vectors: 0 }));
  const after = await readStamps(file);
  assert.ok(after.dirs.has('docs'));
  assert.is(after.backend, 'retrieval-sqlite');
  assert.is(after.files.size, 5);
});

test.run();
