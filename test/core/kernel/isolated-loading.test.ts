import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startTestKernel, type TestKernel } from '../../../core/testing/index.js';
import { describeSettingFields } from '../../../core/kernel/settings-fields.js';
import { SettingsValidationError } from '../../../core/kernel/plugin-settings-editor.js';
import { PACKAGE_FILE_LIST } from '../../../core/kernel/isolation/isolation-mode.js';
import { ROOT, tempDir, until, writeFixturePlugin } from '../../support/gateway.js';
import { settingsEchoSchema } from '../../fixtures/plugins/settings-echo/index.js';

// An isolated plugin's entry is loaded only in isolates: what the gateway needs of it (settings
// schema, environment map) comes from a throwaway probe isolate, so code at the entry's top level
// never runs in the gateway's process.

const MARK = '__switchboardTopLevelRan';
const echo = pathToFileURL(path.join(ROOT, 'dist/test/fixtures/plugins/echo-retrieval/index.js')).href;

let dir: string;
let k: TestKernel;
const view = (id: string) => k.kernel.get(id)!;

/** A plugin folder whose entry runs `body` at its top level, then exports the echo plugin. */
function topLevelPlugin(id: string, body: string, isolation: string): void {
  writeFixturePlugin(dir, id, 'echo-retrieval', { isolation });
  writeFileSync(path.join(dir, id, 'entry.mjs'), `import { readFileSync } from 'node:fs';\n${body}\nexport { default } from ${JSON.stringify(echo)};\n`);
}

test.before(async () => {
  dir = tempDir('switchboard-isolated-loading-');
  topLevelPlugin('marks-process', `globalThis.${MARK} = true;`, 'process');
  topLevelPlugin('marks-worker', `globalThis.${MARK} = true;`, 'worker');
  topLevelPlugin('exits-at-load', 'process.exit(3);', 'process');
  topLevelPlugin('reads-passwd-at-load', "readFileSync('/etc/passwd', 'utf8');", 'process');
  // An installed package (its file list beside the code): isolated by default, described by a probe.
  writeFixturePlugin(dir, 'typed', 'settings-echo');
  writeFileSync(path.join(dir, 'typed', PACKAGE_FILE_LIST), '{}');
  k = await startTestKernel({
    searchPaths: [dir],
    env: { ECHO_COUNT: '7', ECHO_VERBOSE: 'yes', ECHO_TOKEN: 's3cret-value' },
    isolation: { limits: () => ({ memoryMb: 64, unresponsiveMs: 10_000, callMs: 20_000 }) },
    timeouts: { startMs: 30_000 },
  });
});

test.after(async () => {
  await k.stop();
  rmSync(dir, { recursive: true, force: true });
});

const answer = async (id: string) => JSON.parse((await k.kernel.withProvider('retrieval', id, (r) => r.search('c', 'q', 1)))[0]!.text) as Record<string, unknown>;

for (const mode of ['process', 'worker']) {
  test(`${mode}: the entry's top-level code runs in the isolate only, never in the gateway`, async () => {
    const id = `marks-${mode}`;
    await until(() => view(id).state === 'active', 60_000);
    assert.is(view(id).state, 'active', view(id).last_error ?? '');
    assert.is((globalThis as Record<string, unknown>)[MARK], undefined);
  });
}

const atLoad: Array<[string, RegExp]> = [
  ['exits-at-load', /ended its isolate: its process exited \(code 3\)/],
  ['reads-passwd-at-load', /ERR_ACCESS_DENIED|Access to this API has been restricted/],
];
for (const [id, reason] of atLoad) {
  test(`${id}: the plugin is failed with the reason; the gateway and its neighbours go on`, async () => {
    await until(() => view(id).state === 'failed' && (view(id).last_error ?? '') !== '', 60_000);
    assert.match(view(id).last_error ?? '', reason, view(id).last_error ?? '');
    await until(() => view('marks-process').state === 'active', 60_000);
    assert.is((await k.kernel.withProvider('retrieval', 'marks-process', (r) => r.search('c', 'q', 1))).length, 1);
  });
}

test('a loop at load meets the start deadline: the probe is ended, the plugin waits to be retried, this process runs on', async () => {
  // A kernel of its own: its only plugin loops, so a short deadline cannot catch a legitimate load.
  const loopDir = tempDir('switchboard-loop-at-load-');
  const saved = dir;
  dir = loopDir;
  topLevelPlugin('loops-at-load', 'for (;;);', 'process');
  dir = saved;
  const loop = await startTestKernel({ searchPaths: [loopDir], timeouts: { startMs: 3_000 }, backoff: { initialMs: 600_000 } });
  try {
    await until(() => loop.kernel.get('loops-at-load')!.state === 'retrying', 60_000);
    assert.match(loop.kernel.get('loops-at-load')!.last_error ?? '', /loading of loops-at-load timed out after 3000 ms/);
  } finally {
    await loop.stop();
    rmSync(loopDir, { recursive: true, force: true });
  }
});

test('the fix dropped in is loaded: the plugin that exited at load serves', async () => {
  writeFileSync(path.join(dir, 'exits-at-load', 'entry.mjs'), `export { default } from ${JSON.stringify(echo)};\n`);
  await k.kernel.rescan();
  await until(() => view('exits-at-load').state === 'active', 60_000);
  assert.is(view('exits-at-load').state, 'active', view('exits-at-load').last_error ?? '');
});

test('settings cross as the plugin declared them: env text typed, transforms and defaults applied by its own schema', async () => {
  await until(() => view('typed').state === 'active', 60_000);
  assert.is(view('typed').state, 'active', view('typed').last_error ?? '');
  const got = await answer('typed');
  assert.equal(got.types, { count: 'number', verbose: 'boolean' });
  assert.is(got.count, 7);
  assert.is(got.verbose, true);
  assert.equal(got.tags, ['a', 'b'], 'the transform ran in the isolate');
  assert.is(got.token, 'set');
  assert.is(got.folder, path.join(k.dataDir, 'echo-files'), 'the path setting is resolved under DATA_DIR');
});

test('the gateway describes the fields as the plugin declares them, secrets masked', async () => {
  const config = (await k.kernel.configView('typed'))!;
  const expected = describeSettingFields(settingsEchoSchema, { count: 'ECHO_COUNT', verbose: 'ECHO_VERBOSE', token: 'ECHO_TOKEN' });
  assert.equal(config.fields, expected);
  assert.is(config.settings.token, '***');
  assert.ok(!JSON.stringify(config).includes('s3cret-value'));
});

test('a config write the schema refuses is refused with its field; a refinement only the plugin knows fails the reload, the running generation serves on', async () => {
  const refused = await k.kernel.updateConfig('typed', { settings: { mode: 'reckless' } }).catch((e: unknown) => e);
  assert.instance(refused, SettingsValidationError);
  assert.is((refused as SettingsValidationError).field, 'mode');
  const outOfRange = await k.kernel.updateConfig('typed', { settings: { count: 12 } }).catch((e: unknown) => e);
  assert.instance(outOfRange, SettingsValidationError);
  assert.is((outOfRange as SettingsValidationError).field, 'count');
  await k.kernel.updateConfig('typed', { settings: { label: 'forbidden' } });
  await until(() => /label: must not be "forbidden"/.test(view('typed').last_error ?? ''), 60_000);
  assert.is(view('typed').state, 'active');
  assert.is((await answer('typed')).label, 'plain', 'the running generation keeps its settings');
  await k.kernel.updateConfig('typed', { settings: { label: 'fine', mode: 'careful' } });
  await until(async () => (await answer('typed')).label === 'fine', 60_000);
  assert.is((await answer('typed')).mode, 'careful');
});

test.run();
