import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, startGateway, until, writeFixturePlugin, type TestGateway } from '../../../support/gateway.js';
import { writeAtomic } from '../../../support/plugin-folder.js';

let gw: TestGateway;

const plugins = async () => (await json<{ plugins: Array<{ id: string; state: string; health: { ok: boolean; detail?: string } | null }> }>(await fetch(`${gw.url}/plugins`))).plugins;
const linesAbout = (id: string) => gw.logs.map((l) => JSON.parse(l) as { level: number; plugin?: string; msg: string }).filter((l) => l.plugin === id);

test.before(async () => {
  gw = await startGateway({ PLUGIN_HEALTH_TIMEOUT_MS: '150', PLUGIN_RETRY_INITIAL_MS: '1', PLUGIN_RETRY_MAX_MS: '2' });
  // A plugin whose health check never answers: the configured timeout decides.
  const folder = path.join(gw.pluginsDir, 'hangs');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'index.js'), `import { definePlugin } from 'switchboard/sdk';
export default definePlugin({
  start: () => ({
    providers: { retrieval: { index: async () => ({ indexed: 0 }), search: async () => [], delete: async () => ({ deleted: 0 }) } },
    health: () => new Promise(() => {}),
  }),
});
`);
  writeAtomic(path.join(folder, 'manifest.json'), JSON.stringify({
    manifestVersion: 1, id: 'hangs', name: 'n', version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress: [], entry: 'index.js',
  }));
  await gw.gateway.kernel.rescan();
});

test('PLUGIN_RETRY_INITIAL_MS and PLUGIN_RETRY_MAX_MS pace the retries of a not-ready start', async () => {
  const folder = path.join(gw.pluginsDir, 'warming');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'index.js'), `import { definePlugin, NotReadyError } from 'switchboard/sdk';
globalThis.__warmingAttempts = 0;
export default definePlugin({
  start() {
    // Five not-ready answers: about 8 s of retries at the defaults (0.5 s doubling), a few ms here.
    if (++globalThis.__warmingAttempts <= 5) throw new NotReadyError('warming up');
    return { providers: { retrieval: { index: async () => ({ indexed: 0 }), search: async () => [], delete: async () => ({ deleted: 0 }) } } };
  },
});
`);
  writeAtomic(path.join(folder, 'manifest.json'), JSON.stringify({
    manifestVersion: 1, id: 'warming', name: 'n', version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress: [], entry: 'index.js',
    // It counts its attempts in the process's globals: one process across retries.
    isolation: 'in-process',
  }));
  await gw.gateway.kernel.rescan();
  await until(async () => (await plugins()).some((p) => p.id === 'warming' && p.state === 'active'), 15_000, 25);
  assert.is((globalThis as { __warmingAttempts?: number }).__warmingAttempts, 6);
});

test.after(async () => {
  await gw.close();
});

test('PLUGIN_HEALTH_TIMEOUT_MS bounds a plugin health check', async () => {
  const p = await until(async () => (await plugins()).find((x) => x.id === 'hangs' && x.health), 15_000, 25);
  assert.is(p.health!.ok, false);
  assert.is(p.health!.detail, 'health check timed out after 150 ms');
});

test('unconfigured built-ins are logged once at debug (the start-up banner sums them up), not again on every change', async () => {
  const waiting = (await plugins()).filter((p) => p.state === 'needs-config').map((p) => p.id);
  assert.ok(waiting.length > 0, 'some built-in waits for configuration on a fresh install');
  writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  await until(async () => (await plugins()).some((p) => p.id === 'echo' && p.state === 'active'), 15_000, 25);
  await gw.gateway.kernel.rescan();
  await gw.gateway.kernel.rescan();
  for (const id of waiting) {
    const lines = linesAbout(id);
    assert.is(lines.length, 1, `${id}: ${JSON.stringify(lines)}`);
    assert.is(lines[0]!.level, 20, `${id} is logged at debug`);
  }
});

test.run();
