import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { syncDirectory } from '../../../core/sdk/index.js';
import { DirectorySync } from '../../../plugins/storage-local/directory-sync.js';
import { removeDir, tempDir } from '../../support/gateway.js';

const dir = tempDir('directory-sync-');
test.after(() => removeDir(dir));

/** The real directory fsync, held open until released, with a log of when each began and ended. */
function gatedFsync() {
  const log: string[] = [];
  const gates: Array<() => void> = [];
  const fsync = async (d: string) => {
    log.push('start');
    await new Promise<void>((resolve) => gates.push(resolve));
    await syncDirectory(d);
    log.push('end');
  };
  const release = async () => {
    while (!gates.length) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { fsync, log, release };
}

test('requests made while an fsync runs share the next one (group commit)', async () => {
  const { fsync, log, release } = gatedFsync();
  const sync = new DirectorySync(fsync);
  const first = sync.sync(dir);
  const waiting = Array.from({ length: 10 }, () => sync.sync(dir));
  await release();
  await first;
  // The waiting requests' fsync begins as soon as the first one ends.
  assert.equal(log, ['start', 'end', 'start']);
  await release();
  await Promise.all(waiting);
  assert.equal(log, ['start', 'end', 'start', 'end'], 'ten waiting requests, one more fsync');
});

test('a request made during an fsync is not answered by that fsync', async () => {
  const { fsync, log, release } = gatedFsync();
  const sync = new DirectorySync(fsync);
  const first = sync.sync(dir);
  let laterDone = false;
  const later = sync.sync(dir).then(() => (laterDone = true));
  await release();
  await first;
  await new Promise((r) => setImmediate(r));
  assert.is(laterDone, false, 'the fsync running when it asked may predate its rename');
  await release();
  await later;
  assert.is(log.filter((e) => e === 'start').length, 2);
});

test('a failed fsync rejects its waiters and the next request starts afresh', async () => {
  const sync = new DirectorySync();
  const missing = path.join(dir, 'missing');
  await sync.sync(missing).then(
    () => assert.unreachable('a missing directory cannot be synced'),
    (err: NodeJS.ErrnoException) => assert.is(err.code, 'ENOENT'),
  );
  await sync.sync(dir);
});

test.run();
