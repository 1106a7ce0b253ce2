import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { resolvePluginPath } from '../../../core/kernel/plugin-paths.js';
import { resolveSettings } from '../../../core/kernel/settings-resolver.js';
import { ConfigError, dataPath } from '../../../core/sdk/index.js';

const base = mkdtempSync(path.join(tmpdir(), 'plugin-paths-'));
const dataDir = path.join(base, 'data');
const outside = path.join(base, 'outside');
mkdirSync(dataDir);
mkdirSync(outside);
symlinkSync(outside, path.join(dataDir, 'link-out'));
mkdirSync(path.join(dataDir, 'inside'));
symlinkSync(path.join(dataDir, 'inside'), path.join(dataDir, 'link-in'));
test.after(() => rmSync(base, { recursive: true, force: true }));

const refusal = (value: string, allow: string[] = []) => {
  try {
    resolvePluginPath('root', value, { dataDir, allow });
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.is((err as ConfigError).field, 'root');
    return (err as Error).message;
  }
  return undefined;
};

test('a relative path resolves inside DATA_DIR, through a link that stays inside too', () => {
  assert.is(resolvePluginPath('root', 'storage', { dataDir }), path.join(dataDir, 'storage'));
  assert.is(resolvePluginPath('root', 'a/b/../c', { dataDir }), path.join(dataDir, 'a/c'));
  assert.is(resolvePluginPath('root', path.join(dataDir, 'x'), { dataDir }), path.join(dataDir, 'x'), 'an absolute path inside is fine');
  assert.is(resolvePluginPath('root', 'link-in/deeper', { dataDir }), path.join(dataDir, 'link-in/deeper'));
});

test('an absolute path outside, `..`, DATA_DIR itself and a symbolic link leading out are refused with a clear reason', () => {
  assert.match(refusal('/') ?? '', /setting "root": "\/" is outside DATA_DIR.*PLUGIN_PATHS_ALLOW/);
  assert.match(refusal('/etc') ?? '', /outside DATA_DIR/);
  assert.match(refusal('../outside') ?? '', /outside DATA_DIR/);
  assert.match(refusal('a/../../outside') ?? '', /outside DATA_DIR/);
  assert.match(refusal('.') ?? '', /DATA_DIR itself/);
  assert.match(refusal('link-out') ?? '', /through a symbolic link/);
  assert.match(refusal('link-out/new/dir') ?? '', /through a symbolic link/, 'a link on the way is found even when the rest does not exist yet');
});

test('PLUGIN_PATHS_ALLOW lets a path name an allowed directory or one under it; nothing else', () => {
  assert.is(resolvePluginPath('root', outside, { dataDir, allow: [outside] }), outside);
  assert.is(resolvePluginPath('root', path.join(outside, 'idx'), { dataDir, allow: [outside] }), path.join(outside, 'idx'));
  assert.is(resolvePluginPath('root', 'link-out', { dataDir, allow: [outside] }), path.join(dataDir, 'link-out'));
  assert.match(refusal('/etc', [outside]) ?? '', /outside DATA_DIR/);
  assert.match(refusal('/etc', ['relative/dir']) ?? '', /outside DATA_DIR/, 'only absolute entries count');
});

test('settings resolution hands the plugin the checked absolute path of a dataPath field and refuses others', () => {
  const schema = z.object({ dir: dataPath('index') });
  const resolved = resolveSettings(schema, {}, {}, {}, { paths: { dataDir } });
  assert.is(resolved.values.dir, path.join(dataDir, 'index'));
  assert.throws(() => resolveSettings(schema, { dir: '/tmp' }, {}, {}, { paths: { dataDir } }), (err: Error) => err instanceof ConfigError && /outside DATA_DIR/.test(err.message));
  assert.throws(() => resolveSettings(schema, {}, { dir: 'INDEX_DIR' }, { INDEX_DIR: '../../x' }, { paths: { dataDir } }), (err: Error) => /outside DATA_DIR/.test(err.message), 'from the environment too');
});

test.run();
