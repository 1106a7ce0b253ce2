import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isBinary, looksMinified, walkRepository, walkRepositorySync, type DirListing } from '../../../../../host/surfaces/search/indexing/indexer/file-walk.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';

const root = tempDir('walk-repo-');
const outside = tempDir('walk-outside-');
test.after(() => {
  removeDir(root);
  removeDir(outside);
});

function write(rel: string, content: string | Buffer): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, content);
}

test('.gitignore rules (nested too), dependency folders, lockfiles, minified bundles, size limit and symlinks out of the root', async () => {
  write('.gitignore', 'build/\n*.log\n');
  write('src/app.ts', 'export const app = 1;\n');
  write('src/.gitignore', 'generated.ts\n');
  write('src/generated.ts', 'export const g = 1;\n');
  write('src/deep/keep.py', 'x = 1\n');
  write('build/out.js', 'compiled\n');
  write('debug.log', 'log\n');
  write('node_modules/dep/index.js', 'dep\n');
  write('.git/HEAD', 'ref\n');
  write('package-lock.json', '{}\n');
  write('yarn.lock', '\n');
  write('vendor/jquery.min.js', 'x\n');
  write('big.txt', 'z'.repeat(5000));
  writeFileSync(path.join(outside, 'secret.txt'), 'outside the root\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'src/link-out.txt'));
  symlinkSync(path.join(root, 'src/app.ts'), path.join(root, 'src/link-in.ts'));
  const walked = await walkRepository(root, { maxBytes: 4096 });
  assert.equal(
    walked.files.map((f) => f.rel).sort(),
    ['.gitignore', 'src/.gitignore', 'src/app.ts', 'src/deep/keep.py', 'src/link-in.ts'],
  );
  assert.is(walked.skipped, 5, 'package-lock.json, yarn.lock, jquery.min.js, big.txt, link-out.txt');
});

test('a link is read at the target the walk checked: re-pointing it outside afterwards reads nothing outside', async () => {
  const repo = tempDir('walk-link-');
  try {
    writeFileSync(path.join(repo, 'real.ts'), 'export const inside = 1;\n');
    symlinkSync(path.join(repo, 'real.ts'), path.join(repo, 'alias.ts'));
    const walked = await walkRepository(repo, { maxBytes: 4096 });
    const alias = walked.files.find((f) => f.rel === 'alias.ts')!;
    assert.is(alias.abs, path.join(realpathSync(repo), 'real.ts'), 'the resolved path, not the link');
    // The link now points outside the root, between the walk and the chunk worker's read.
    unlinkSync(path.join(repo, 'alias.ts'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(repo, 'alias.ts'));
    assert.is(readFileSync(alias.abs, 'utf8'), 'export const inside = 1;\n');
  } finally {
    removeDir(repo);
  }
});

test('directory listings: an unchanged directory is not listed again, its files are still stat\'ed, a new entry is seen, and a just-changed directory is not recorded', async () => {
  const repo = tempDir('walk-listings-');
  try {
    mkdirSync(path.join(repo, 'src'));
    writeFileSync(path.join(repo, 'src/a.ts'), 'export const a = 1;\n');
    const old = Math.floor(Date.now() / 1000) - 3600;
    utimesSync(path.join(repo, 'src'), old, old);
    utimesSync(repo, old, old);
    const walk = (previous: Map<string, DirListing>, startedMs = Date.now()) => {
      const next = new Map<string, DirListing>();
      return { walked: walkRepositorySync(repo, { maxBytes: 4096, listings: { previous, next, startedMs } }), next };
    };
    const first = walk(new Map());
    assert.equal([...first.next.keys()].sort(), ['', 'src']);
    assert.equal(first.next.get('src')![2], ['fa.ts']);
    // A listing that is recorded is believed while the directory's mtime and inode hold: proof that it is not read again.
    const forged = new Map(first.next);
    forged.set('src', [...forged.get('src')!.slice(0, 2), ['fa.ts', 'fghost.ts']] as DirListing);
    assert.equal(walk(forged).walked.files.map((f) => f.rel), ['src/a.ts'], 'a listed file that is gone is dropped at its stat');
    // An edit in place keeps the directory's mtime; the file's own stat still shows it.
    writeFileSync(path.join(repo, 'src/a.ts'), 'export const a = 12345;\n');
    utimesSync(path.join(repo, 'src'), old, old);
    const edited = walk(first.next);
    assert.is(edited.walked.files[0]!.size, 'export const a = 12345;\n'.length);
    // A new file moves the directory's mtime: listed again, and (changed just now) not recorded.
    writeFileSync(path.join(repo, 'src/b.ts'), 'export const b = 2;\n');
    const added = walk(edited.next);
    assert.equal(added.walked.files.map((f) => f.rel), ['src/a.ts', 'src/b.ts']);
    assert.not.ok(added.next.has('src'), 'changed within the racy window');
    assert.ok(walk(edited.next, Date.now() + 5000).next.has('src'), 'recorded once the window has passed');
  } finally {
    removeDir(repo);
  }
});

test('the synchronous walk and the asynchronous one give the same files', async () => {
  const sync = walkRepositorySync(root, { maxBytes: 4096 });
  const asyncWalk = await walkRepository(root, { maxBytes: 4096 });
  assert.equal(sync, asyncWalk);
});

test('binary and minified detection', () => {
  assert.ok(isBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01])));
  assert.not.ok(isBinary(Buffer.from('plain text\n')));
  assert.ok(looksMinified(`var a=1;${'function b(){return a}'.repeat(300)}`));
  assert.not.ok(looksMinified(Array.from({ length: 200 }, (_, i) => `const line${i} = ${i};`).join('\n')));
});

test.run();
