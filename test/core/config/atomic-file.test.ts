import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, mkdirSync, chmodSync, rmSync } from 'node:fs';
import { rename as realRename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../../../core/config/atomic-file.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-atomic-'));
  dirs.push(dir);
  return dir;
}

/** An error shaped exactly like the one fs.rename rejects with for `code`. */
function errnoError(code: string, errno: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: rename failed`), { code, errno: -errno, syscall: 'rename' });
}
const failingRename = (code: string, errno: number) => async () => {
  throw errnoError(code, errno);
};

test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('creates a missing file (and its directory) by rename, leaving no temp file', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'nested', 'config.json');
  const method = await writeFileAtomic(file, '{"a":1}\n', { mode: 0o600 });
  assert.is(method, 'rename');
  assert.is(readFileSync(file, 'utf8'), '{"a":1}\n');
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.equal(readdirSync(path.dirname(file)), ['config.json']);
});

test('replaces an existing file by rename and keeps its permission bits', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'config.json');
  writeFileSync(file, 'old content that is longer');
  chmodSync(file, 0o640);
  const method = await writeFileAtomic(file, 'new', { mode: 0o600 });
  assert.is(method, 'rename');
  assert.is(readFileSync(file, 'utf8'), 'new');
  assert.is(statSync(file).mode & 0o777, 0o640);
  assert.equal(readdirSync(dir), ['config.json']);
});

test('a rename failing with EIO rejects, leaves the old file intact and removes the temp file', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'config.json');
  writeFileSync(file, '{"old":true}\n');
  const before = readFileSync(file);
  let tempSeen = '';
  const err = await writeFileAtomic(file, '{"new":true}\n', {
    rename: async (from) => {
      tempSeen = from;
      assert.is(readFileSync(from, 'utf8'), '{"new":true}\n', 'the temp file holds the full new content');
      throw errnoError('EIO', 5);
    },
  }).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.ok(err, 'the write must fail');
  assert.is(err?.code, 'EIO');
  assert.is(path.dirname(tempSeen), dir, 'the temp file is in the target directory');
  assert.ok(readFileSync(file).equals(before), 'old file byte-for-byte unchanged');
  assert.equal(readdirSync(dir), ['config.json']);
});

test('a real rename failure (target is a directory) leaves the target and no temp file', async () => {
  const dir = tempDir();
  const target = path.join(dir, 'config.json');
  mkdirSync(target);
  writeFileSync(path.join(target, 'inside'), 'x');
  let err: NodeJS.ErrnoException | undefined;
  try {
    await writeFileAtomic(target, 'data');
  } catch (e) {
    err = e as NodeJS.ErrnoException;
  }
  assert.ok(err && ['EISDIR', 'ENOTEMPTY', 'EEXIST'].includes(err.code ?? ''), `got ${err?.code}`);
  assert.equal(readdirSync(dir), ['config.json']);
  assert.is(readFileSync(path.join(target, 'inside'), 'utf8'), 'x');
});

test('EBUSY on rename (a bind-mounted file) rewrites the same inode in place', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'config.json');
  writeFileSync(file, '{"old": "a much longer old content than the new one"}\n');
  const inode = statSync(file).ino;
  const method = await writeFileAtomic(file, '{"new":1}\n', { rename: failingRename('EBUSY', 16) });
  assert.is(method, 'in-place');
  assert.is(readFileSync(file, 'utf8'), '{"new":1}\n', 'new content, old tail truncated');
  assert.is(statSync(file).ino, inode, 'same inode');
  assert.equal(readdirSync(dir), ['config.json'], 'temp file removed');
});

test('EXDEV on rename falls back to an in-place write, creating a missing target', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'config.json');
  const method = await writeFileAtomic(file, 'created', { rename: failingRename('EXDEV', 18) });
  assert.is(method, 'in-place');
  assert.is(readFileSync(file, 'utf8'), 'created');
  assert.equal(readdirSync(dir), ['config.json']);
});

test('the injected rename receives the temp file and the target, and real rename completes the write', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'config.json');
  const calls: Array<[string, string]> = [];
  await writeFileAtomic(file, 'via injected rename', {
    rename: async (from, to) => {
      calls.push([from, to]);
      await realRename(from, to);
    },
  });
  assert.is(calls.length, 1);
  assert.is(calls[0]?.[1], file);
  assert.ok(path.basename(calls[0]?.[0] ?? '').startsWith('.config.json.'));
  assert.is(readFileSync(file, 'utf8'), 'via injected rename');
});

test.run();
