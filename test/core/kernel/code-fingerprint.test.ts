import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashPluginFolder } from '../../../core/kernel/code-fingerprint.js';
import { tempDir } from '../../support/gateway.js';

test('the folder hash follows the code and ignores the manifest, dependencies, dot folders and temp files', () => {
  const dir = tempDir('switchboard-hash-');
  try {
    mkdirSync(path.join(dir, 'lib'));
    writeFileSync(path.join(dir, 'index.js'), 'export default 1;');
    writeFileSync(path.join(dir, 'lib', 'a.js'), 'export const a = 1;');
    const manifest = path.join(dir, 'manifest.json');
    writeFileSync(manifest, '{}');
    const first = hashPluginFolder(dir, [manifest]);
    writeFileSync(manifest, '{"changed": true}');
    mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(dir, 'node_modules', 'x', 'index.js'), 'dependency');
    mkdirSync(path.join(dir, '.git'));
    writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref');
    writeFileSync(path.join(dir, 'manifest.json.123.partial'), '{');
    writeFileSync(path.join(dir, 'lib', 'a.js~'), 'backup');
    assert.is(hashPluginFolder(dir, [manifest]), first);
    writeFileSync(path.join(dir, 'lib', 'a.js'), 'export const a = 2;');
    const second = hashPluginFolder(dir, [manifest]);
    assert.is.not(second, first, 'a module of the folder changed');
    writeFileSync(path.join(dir, 'lib', 'data.json'), '[]');
    assert.is.not(hashPluginFolder(dir, [manifest]), second, 'a data file the code may import is part of it');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
