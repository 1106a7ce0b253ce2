import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing/index.js';
import type { PluginView } from '../../../core/kernel/kernel.js';
import { baseManifest, removeDir, tempDir, until, writeFixturePlugin, writeManifest } from '../../support/gateway.js';

// The kernel's own watcher on a search path outside the package: what reaches a plugin when
// its manifest (or the config store) is replaced by rename, or written slowly in place.
let dir: string;
let k: TestKernel;
let slowFile: string;
let otherFile: string;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const view = (id: string): PluginView => k.kernel.get(id)!;
const manifestOf = (id: string, version: string) => ({ ...baseManifest(id), entry: 'entry.mjs', version });

test.before(async () => {
  dir = tempDir('switchboard-manifest-watch-');
  slowFile = writeFixturePlugin(dir, 'echo-slow', 'echo-retrieval');
  otherFile = writeFixturePlugin(dir, 'echo-other', 'echo-retrieval');
  k = await startTestKernel({ searchPaths: [dir], watch: true });
  assert.is(view('echo-slow').state, 'active', view('echo-slow').last_error ?? '');
  assert.is(view('echo-other').state, 'active', view('echo-other').last_error ?? '');
});

test.after(async () => {
  await k.stop();
  removeDir(dir);
});

test('a manifest renamed into place starts a new generation on it', async () => {
  const before = view('echo-other').generation!;
  writeManifest(otherFile, manifestOf('echo-other', '1.1.0'));
  // The view shows a new manifest's version while its generation starts: wait for the generation.
  const after = await until(() => (view('echo-other').generation === before + 1 ? view('echo-other') : undefined));
  assert.is(after.state, 'active');
  assert.is(after.version, '1.1.0');
  assert.equal(after.diagnostics, []);
});

test('a new plugin folder whose manifest is renamed into place becomes active', async () => {
  writeFixturePlugin(dir, 'echo-new', 'echo-retrieval');
  const active = await until(() => (k.kernel.stateOf('echo-new') === 'active' ? view('echo-new') : undefined));
  assert.is(active.generation, 1);
  assert.is(active.version, '1.0.0');
});

test('a manifest written slowly in place never starts a generation or shows a diagnostic before it is complete', async () => {
  const before = view('echo-slow');
  const started: number[] = [];
  const seenByOther: PluginView[] = [];
  let writing = true;
  const onGeneration = (e: { pluginId: string; generation: number }) => {
    if (e.pluginId === 'echo-slow') started.push(e.generation);
    // What a scan made for another plugin's change found of the half-written one.
    if (e.pluginId === 'echo-other' && writing) seenByOther.push(view('echo-slow'));
  };
  k.kernel.events.on('generation', onGeneration);
  const text = JSON.stringify(manifestOf('echo-slow', '2.0.0'), null, 2);
  const chunk = Math.ceil(text.length / 6);
  const unchanged = (label: string) => {
    const now = view('echo-slow');
    assert.is(now.state, 'active', label);
    assert.is(now.generation, before.generation, label);
    assert.is(now.version, before.version, label);
    assert.equal(now.diagnostics, [], label);
    assert.is(now.last_error, null, label);
  };
  try {
    const fd = openSync(slowFile, 'w');
    try {
      for (let i = 0, n = 0; i < text.length; i += chunk, n++) {
        writeSync(fd, text.slice(i, i + chunk));
        // Scans while the file is half-written: one for another plugin's manifest, one asked for.
        if (n === 1) writeManifest(otherFile, manifestOf('echo-other', `1.2.${Date.now()}`));
        if (n === 3) {
          await k.kernel.rescan();
          unchanged(`after a rescan with ${i + chunk} of ${text.length} chars written`);
        }
        unchanged(`with ${Math.min(i + chunk, text.length)} of ${text.length} chars written`);
        if (i + chunk < text.length) await sleep(30 + (n % 3) * 25);
      }
    } finally {
      closeSync(fd);
      writing = false;
    }
    const after = await until(() => (view('echo-slow').generation === before.generation! + 1 ? view('echo-slow') : undefined));
    await k.kernel.idle();
    assert.is(after.version, '2.0.0');
    assert.is(after.state, 'active');
    assert.equal(after.diagnostics, []);
    assert.equal(started, [before.generation! + 1], 'one new generation, from the complete file');
    for (const seen of seenByOther) {
      assert.is(seen.version, before.version);
      assert.equal(seen.diagnostics, []);
    }
  } finally {
    k.kernel.events.off('generation', onGeneration);
  }
});

test('a manifest left half-written is reported once it stops changing; the previous generation keeps serving', async () => {
  const before = view('echo-slow');
  const fd = openSync(slowFile, 'w');
  try {
    writeSync(fd, '{ "id": "echo-slow", ');
    await sleep(40);
    writeSync(fd, '"version": ');
  } finally {
    closeSync(fd);
  }
  const broken = await until(() => (view('echo-slow').diagnostics.some((d) => d.code === 'invalid-json') ? view('echo-slow') : undefined));
  assert.is(broken.state, 'active');
  assert.is(broken.generation, before.generation);
  assert.match(broken.last_error ?? '', /reload failed, previous generation keeps serving/);

  writeManifest(slowFile, manifestOf('echo-slow', '2.1.0'));
  const fixed = await until(() => (view('echo-slow').generation === before.generation! + 1 ? view('echo-slow') : undefined));
  assert.is(fixed.version, '2.1.0');
  assert.is(fixed.last_error, null);
  assert.equal(fixed.diagnostics, []);
});

test('the config store replaced by rename is applied: a plugin is disabled, then enabled again', async () => {
  const store = path.join(k.dataDir, 'plugins.config.json');
  const replace = (config: unknown) => {
    writeFileSync(`${store}.partial`, JSON.stringify(config));
    renameSync(`${store}.partial`, store);
  };
  replace({ 'echo-new': { enabled: false } });
  await until(() => k.kernel.stateOf('echo-new') === 'stopped');
  replace({ 'echo-new': { enabled: true } });
  const back = await until(() => (k.kernel.stateOf('echo-new') === 'active' ? view('echo-new') : undefined));
  assert.is(back.generation, 2);
});

test.run();
