import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, symlinkSync, writeFileSync, rmSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as hostSdk from '../../../core/sdk/index.js';
import { startTestKernel, type TestKernel } from '../../../core/testing/index.js';
import { SettingsValidationError } from '../../../core/kernel/kernel.js';
import { tempDir, until } from '../../support/gateway.js';
import { writeAtomic, writeHelper, writePluginFolder } from '../../support/plugin-folder.js';

/** Folders made outside the search path (symlink targets), removed at the end. */
const outsideDirs: string[] = [];

// Everything here lives under os.tmpdir(), outside the package, with no node_modules.
let dir: string;
let k: TestKernel;

const answerOf = (id: string) => k.kernel.withProvider('retrieval', id, async (r) => (await r.search('c', 'q', 1))[0]?.id);
const sdkOf = (id: string) => (globalThis as { __switchboardSdkOf?: Record<string, typeof hostSdk> }).__switchboardSdkOf?.[id];

test.before(async () => {
  dir = tempDir('switchboard-folder-plugins-');
  // These two publish the SDK instance they got on the process's globals: run in the gateway's process.
  writePluginFolder(dir, 'folder-plain', { manifest: { isolation: 'in-process' } });
  // A folder that bundles its own copy of the SDK: recognised, and given the host's anyway.
  const bundled = writePluginFolder(dir, 'folder-bundled', { manifest: { isolation: 'in-process' } });
  const copy = path.join(bundled, 'node_modules', 'switchboard');
  mkdirSync(copy, { recursive: true });
  writeFileSync(path.join(copy, 'package.json'), JSON.stringify({ name: 'switchboard', version: '9.9.9', type: 'module', exports: { './sdk': './sdk.js' } }));
  writeFileSync(path.join(copy, 'sdk.js'), "throw new Error('the bundled SDK copy was loaded');\n");
  // An entry that is a symlink to a module outside the plugin folder.
  const outside = tempDir('switchboard-outside-');
  outsideDirs.push(outside);
  writeFileSync(path.join(outside, 'evil.js'), "globalThis.__switchboardEvilRan = true; export default {};\n");
  const linked = writePluginFolder(dir, 'folder-symlink');
  rmSync(path.join(linked, 'index.js'));
  symlinkSync(path.join(outside, 'evil.js'), path.join(linked, 'index.js'));
  // A declarative block this host has no runtime for.
  mkdirSync(path.join(dir, 'alerting'));
  writeFileSync(
    path.join(dir, 'alerting', 'manifest.json'),
    JSON.stringify({
      manifestVersion: 1, id: 'alerting', name: 'Alerts', version: '1.0.0', description: 'alert block', author: 'tests', host: '^0.1.0',
      provides: [{ kind: 'alert-sink', contract: 'alert-sink@^1' }], capabilities: [], egress: ['hooks.example.com'],
      alert: { method: 'POST', url: 'https://hooks.example.com/x', body: { json: { text: '{{ alert.title }}' } } },
    }),
  );
  k = await startTestKernel({ searchPaths: [dir], watch: true });
});

test.after(async () => {
  await k.stop();
  rmSync(dir, { recursive: true, force: true });
  for (const d of outsideDirs) rmSync(d, { recursive: true, force: true });
});

test('a plain-JS plugin folder outside the package loads and gets the host SDK instance', async () => {
  assert.is(k.kernel.stateOf('folder-plain'), 'active', k.kernel.get('folder-plain')?.last_error ?? '');
  assert.is(await answerOf('folder-plain'), 'first');
  assert.ok(sdkOf('folder-plain'), 'the plugin module ran');
  assert.is(sdkOf('folder-plain')!.definePlugin, hostSdk.definePlugin, 'one SDK instance: the host build');
  assert.is(sdkOf('folder-plain')!.ConfigError, hostSdk.ConfigError);
});

test('a folder bundling its own switchboard copy is recognised and still gets the host SDK', async () => {
  const view = k.kernel.get('folder-bundled')!;
  assert.is(view.state, 'active', view.last_error ?? '');
  assert.is(sdkOf('folder-bundled')!.definePlugin, hostSdk.definePlugin);
  const warning = view.diagnostics.find((d) => d.code === 'bundled-sdk');
  assert.ok(warning, JSON.stringify(view.diagnostics));
  assert.is(warning!.severity, 'warning');
  assert.match(warning!.message, /9\.9\.9/);
});

test('an entry symlinked outside the plugin folder is refused with a diagnostic, never run', () => {
  const view = k.kernel.get('folder-symlink')!;
  assert.is(view.state, 'rejected');
  assert.is((globalThis as { __switchboardEvilRan?: boolean }).__switchboardEvilRan, undefined, 'the outside module was not imported');
  const d = view.diagnostics.find((x) => x.code === 'entry-outside-folder');
  assert.ok(d, JSON.stringify(view.diagnostics));
  assert.match(view.last_error ?? '', /outside the plugin folder/);
});

test('a plugin whose code is refused: its config view shows what is stored, an update is a validation error', async () => {
  const view = await k.kernel.configView('folder-symlink');
  assert.equal(view?.settings, {});
  const err = await k.kernel.updateConfig('folder-symlink', { settings: { fail: false } }).catch((e: Error) => e);
  assert.instance(err, SettingsValidationError);
  assert.match((err as Error).message, /code does not load: entry "index\.js" resolves to .*outside the plugin folder/);
});

test('a declarative block without a runtime is refused as not supported by this host', () => {
  const view = k.kernel.get('alerting')!;
  assert.is(view.state, 'rejected');
  const d = view.diagnostics.find((x) => x.code === 'unsupported-block');
  assert.ok(d, JSON.stringify(view.diagnostics));
  assert.is(d!.severity, 'error');
  assert.match(d!.message, /"alert" block is not supported by this host/);
});

test('editing a module imported by index.js starts a new generation running the new code', async () => {
  const folder = path.join(dir, 'folder-plain');
  const before = k.kernel.get('folder-plain')!.generation!;
  writeHelper(folder, 'second');
  await until(async () => (await answerOf('folder-plain')) === 'second', 5000, 25);
  assert.is(k.kernel.get('folder-plain')!.generation, before + 1);
});

test('a module that fails to import keeps the old generation serving, and recovers once fixed', async () => {
  const folder = path.join(dir, 'folder-plain');
  const before = k.kernel.get('folder-plain')!.generation!;
  writeHelper(folder, '', 'export function answer() { return ; ]\n');
  const broken = await until(() => {
    const v = k.kernel.get('folder-plain')!;
    return v.last_error ? v : undefined;
  }, 5000, 25);
  assert.match(broken.last_error!, /reload failed, generation \d+ keeps serving/);
  assert.is(broken.state, 'active');
  assert.is(broken.generation, before);
  assert.is(await answerOf('folder-plain'), 'second', 'the previous code keeps serving');
  writeHelper(folder, 'third');
  await until(async () => (await answerOf('folder-plain')) === 'third', 5000, 25);
  const fixed = k.kernel.get('folder-plain')!;
  assert.is(fixed.generation, before + 1);
  assert.is(fixed.last_error, null);
});

test('a repaired manifest clears last_error', async () => {
  const file = path.join(dir, 'folder-plain', 'manifest.json');
  const good = readFileSync(file, 'utf8');
  writeAtomic(file, '{ "id": "folder-plain", ');
  await until(() => k.kernel.get('folder-plain')!.last_error?.includes('manifest rejected'), 5000, 25);
  writeAtomic(file, good);
  await until(() => k.kernel.get('folder-plain')!.diagnostics.length === 0, 5000, 25);
  await k.kernel.idle();
  const view = k.kernel.get('folder-plain')!;
  assert.is(view.state, 'active');
  assert.is(view.last_error, null);
});

test('replacing the symlinked entry with a file of the folder loads it', async () => {
  const folder = path.join(dir, 'folder-symlink');
  rmSync(path.join(folder, 'index.js'));
  writeFileSync(path.join(folder, 'index.js'), readFileSync(path.join(dir, 'folder-bundled', 'index.js'), 'utf8'));
  await until(() => k.kernel.stateOf('folder-symlink') === 'active', 5000, 25);
  assert.equal(k.kernel.get('folder-symlink')!.diagnostics, []);
});

test.run();
