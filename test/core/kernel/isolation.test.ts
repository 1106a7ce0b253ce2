import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FaxSendResult } from '../../../core/sdk/index.js';
import { startTestKernel, type TestKernel } from '../../../core/testing/index.js';
import { PluginCrashedError } from '../../../core/kernel/kernel.js';
import { PACKAGE_FILE_LIST } from '../../../core/kernel/isolation/isolation-mode.js';
import { ROOT, tempDir, until, writeFixturePlugin } from '../../support/gateway.js';
import { UNRULY_NUMBERS } from '../../fixtures/plugins/unruly-fax/index.js';

// Real plugins written to misbehave (test/fixtures/plugins/unruly-fax), run isolated in a child
// process and in a worker: each misdeed stops only the plugin, which is failed with the reason,
// restarted with backoff, and serves again; its neighbour serves throughout.

let dir: string;
let k: TestKernel;
let job = 0;

const document = { url: 'http://127.0.0.1/doc.pdf', pages: 1, read: async () => Buffer.from('%PDF-1.4 test'), saveArtifact: async () => ({ key: 'k' }), renderTiff: async () => ({ key: 'k', pages: 1 }) };
const send = (id: string, to: string) => k.kernel.withProvider('fax', id, (fax) => fax.send({ jobId: `job-${++job}`, to, document, publicBaseUrl: 'http://127.0.0.1' })) as Promise<FaxSendResult>;
const search = (id: string) => k.kernel.withProvider('retrieval', id, (r) => r.search('c', 'q', 1));
const view = (id: string) => k.kernel.get(id)!;

function sendsOf(id: string): string[] {
  const log = path.join(k.dataDir, 'plugin-data', id, 'sends.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
}

const modes = ['process', 'worker'] as const;

test.before(async () => {
  dir = tempDir('switchboard-isolation-');
  for (const mode of modes) writeFixturePlugin(dir, `unruly-${mode}`, 'unruly-fax', { provides: [{ kind: 'fax', contract: 'fax@^1' }], isolation: mode });
  writeFixturePlugin(dir, 'steady', 'echo-retrieval');
  // An installed package: its folder holds the package's file list, so it runs isolated by default.
  writeFileSync(path.join(dir, 'steady', PACKAGE_FILE_LIST), '{}');
  k = await startTestKernel({
    searchPaths: [dir],
    watch: true,
    isolation: { limits: () => ({ memoryMb: 64, unresponsiveMs: 10_000, callMs: 20_000 }) },
    backoff: { initialMs: 50, maxMs: 400 },
    // A child process starts in well under a second on an idle machine; CI machines are not idle.
    timeouts: { startMs: 30_000 },
  });
});

test.after(async () => {
  await k.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an installed package without an isolation choice starts isolated and serves', async () => {
  await until(() => view('steady').state === 'active', 60_000);
  assert.is(view('steady').state, 'active', view('steady').last_error ?? '');
  assert.is((await search('steady')).length, 1);
});

for (const mode of modes) {
  const id = `unruly-${mode}`;

  test(`${mode}: a send crosses the boundary, the document read called back into the host`, async () => {
    await until(() => view(id).state === 'active', 60_000);
    assert.is(view(id).state, 'active', view(id).last_error ?? '');
    const result = await send(id, '+15551234567');
    assert.match(result.providerSid, /^unruly-job-\d+$/);
    assert.is(result.pages, 1);
  });

  test(`${mode}: ctx.storage crosses the boundary: what a send stored, status reads back, under plugins/<id>/ of the store`, async () => {
    await until(() => view(id).state === 'active', 60_000);
    const result = await send(id, '+15551234567');
    const lookup = (jobId: string) => k.kernel.withProvider('fax', id, (fax) => fax.status({ jobId, to: '+15551234567', sentAt: new Date() }));
    assert.equal(await lookup(result.providerSid.replace('unruly-', '')), { providerSid: result.providerSid, status: 'in_progress' });
    assert.is(await lookup('job-never'), null);
    assert.is(readFileSync(path.join(k.dataDir, 'plugin-store', 'plugins', id, 'sends', result.providerSid.replace('unruly-', '')), 'utf8'), result.providerSid);
  });

  const crashes: Array<[string, string, RegExp]> = [
    ['a busy loop in send', UNRULY_NUMBERS.busyLoop, /event loop was blocked/],
    ['unbounded allocation', UNRULY_NUMBERS.allocate, /memory limit \(64 MB\)/],
    ['process.exit() in the plugin', UNRULY_NUMBERS.exit, /exited \(code 3\)/],
    ['a throw in a timer', UNRULY_NUMBERS.timerThrow, /thrown in a timer of unruly-fax/],
  ];
  for (const [what, number, reason] of crashes) {
    test(`${mode}: ${what} stops only the plugin: failed with the reason, restarted with backoff, the neighbour serves`, async () => {
      await until(() => view(id).state === 'active', 60_000);
      const before = view(id).generation!;
      const failed = new Promise<void>((resolve) => k.kernel.events.on('state', (e) => e.pluginId === id && e.state === 'failed' && resolve()));
      const outcome = await send(id, number).then(
        () => undefined,
        (err: unknown) => err,
      );
      await failed;
      if (number !== UNRULY_NUMBERS.timerThrow) {
        assert.instance(outcome, PluginCrashedError);
        assert.is((outcome as PluginCrashedError).code, 'plugin_crashed');
      }
      assert.match(view(id).last_error ?? '', reason);
      assert.is((await search('steady')).length, 1, 'the neighbour keeps serving');
      await until(() => view(id).state === 'active' && view(id).generation! > before, 60_000);
      assert.match((await send(id, '+15551234567')).providerSid, /^unruly-/);
    });
  }

  test(`${mode}: a socket opened directly is refused; the plugin stays up`, async () => {
    await until(() => view(id).state === 'active', 60_000);
    const err = (await send(id, UNRULY_NUMBERS.socket).catch((e: unknown) => e)) as Error;
    assert.match(err.message, /refused to an isolated plugin/);
    assert.is(view(id).state, 'active');
  });
}

for (const mode of modes) {
  test(`${mode}: reading /etc/passwd directly is refused (the file system is its own folders only)`, async () => {
    await until(() => view(`unruly-${mode}`).state === 'active', 60_000);
    const err = (await send(`unruly-${mode}`, UNRULY_NUMBERS.passwd).catch((e: unknown) => e)) as Error & { code?: string };
    assert.is(err.code, 'ERR_ACCESS_DENIED', err.message);
    assert.is(view(`unruly-${mode}`).state, 'active');
  });
}

test('no send reached the plugin twice: each job id is in its sends log once', () => {
  for (const mode of modes) {
    const jobs = sendsOf(`unruly-${mode}`).map((line) => line.split(' ')[0]);
    assert.ok(jobs.length > 0);
    assert.is(new Set(jobs).size, jobs.length);
  }
});

test('the fix dropped into the folder is hot-reloaded: the former busy loop is sent', async () => {
  const id = 'unruly-process';
  const before = view(id).generation!;
  const fixed = path.join(ROOT, 'dist/test/fixtures/plugins/unruly-fax-fixed/index.js');
  writeFileSync(path.join(dir, id, 'entry.mjs'), `export { default } from ${JSON.stringify(pathToFileURL(fixed).href)};\n`);
  await until(() => view(id).generation! > before && view(id).state === 'active', 60_000);
  assert.match((await send(id, UNRULY_NUMBERS.busyLoop)).providerSid, /^fixed-job-/);
});

test.run();
