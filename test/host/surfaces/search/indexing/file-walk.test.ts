import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readFileSync, realpathSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isBinary, looksMinified, walkRepository } from '../../../../../host/surfaces/search/indexing/indexer/file-walk.js';
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

test('binary and minified detection', () => {
  assert.ok(isBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01])));
  assert.not.ok(isBinary(Buffer.from('plain text\n')));
  assert.ok(looksMinified(`var a=1;${'function b(){return a}'.repeat(300)}`));
  assert.not.ok(looksMinified(Array.from({ length: 200 }, (_, i) => `const line${i} = ${i};`).join('\n')));
});

test.run();
