import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginConfigStore } from '../../../../../core/config/plugin-config-store.js';
import { OutboundGuard } from '../../../../../core/kernel/egress.js';
import { loadBackend } from '../../../../../host/surfaces/search/indexing/indexer/load-backend.js';

// The indexer child starts its retrieval backend through the kernel's plugin runner: these
// backends are third-party folders, as an author ships them, with settings in the config store.

// dist/test/host/surfaces/search/indexing -> the package root
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../..');
const base = mkdtempSync(path.join(tmpdir(), 'switchboard-load-backend-'));
const configStorePath = path.join(base, 'plugins.config.json');

/** A retrieval backend whose search answers what its `endpoint` setting's server says. */
function writeBackend(id: string, egress: string[]): string {
  const folder = path.join(base, id);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'index.js'),
    `import { definePlugin, z } from 'switchboard/sdk';
export default definePlugin({
  settings: z.object({ endpoint: z.string(), hang: z.boolean().default(false) }),
  start(ctx) {
    if (ctx.settings.hang) return new Promise(() => {});
    return {
      providers: {
        retrieval: {
          async index(_c, docs) { return { indexed: docs.length }; },
          async search() {
            const res = await ctx.http.fetch(ctx.settings.endpoint);
            return [{ id: await res.text(), score: 1 }];
          },
          async delete() { return { deleted: 0 }; },
        },
      },
    };
  },
});
`,
  );
  const manifest = { manifestVersion: 1, id, name: id, version: '1.0.0', description: 'a retrieval backend in a folder', author: 'tests', host: '^0.1.0', provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress, entry: 'index.js' };
  writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify(manifest));
  return path.join(folder, 'manifest.json');
}

const backendOf = (pluginId: string, manifestPath: string) => ({ pluginId, manifestPath, configStorePath, dataDir: base, packageRoot });

// The server also keeps the event loop up while a start deadline (an unref'd timer) runs out.
let server: Server;
let endpoint = '';
test.before(async () => {
  server = createServer((_req, res) => res.end('from-the-endpoint'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/answer`;
});
test.after(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(base, { recursive: true, force: true });
});

test('a `settings:` egress entry is resolved to the host of that setting in the indexer child', async () => {
  const manifestPath = writeBackend('settings-egress', ['settings:endpoint']);
  await new PluginConfigStore(configStorePath).put('settings-egress', { enabled: true, settings: { endpoint } });
  // The stored endpoint is a run-time URL on loopback: the child's guard allows it as OUTBOUND_ALLOW_HOSTS would.
  const backend = await loadBackend(backendOf('settings-egress', manifestPath), {}, new OutboundGuard(() => ['127.0.0.1']));
  try {
    const hits = await backend.provider.search('c', 'anything', 1);
    assert.equal(hits.map((h) => h.id), ['from-the-endpoint']);
  } finally {
    await backend.stop();
  }
});

test('without an egress entry for it the same call is refused (the egress check is live)', async () => {
  const manifestPath = writeBackend('no-egress', []);
  await new PluginConfigStore(configStorePath).put('no-egress', { enabled: true, settings: { endpoint } });
  const backend = await loadBackend(backendOf('no-egress', manifestPath), {});
  try {
    const err = await backend.provider.search('c', 'anything', 1).then(() => undefined, (e: unknown) => e as Error);
    assert.is(err?.name, 'EgressDeniedError');
  } finally {
    await backend.stop();
  }
});

test('a backend whose start never resolves fails with the start timeout instead of hanging the child', async () => {
  const manifestPath = writeBackend('hangs-at-start', ['settings:endpoint']);
  await new PluginConfigStore(configStorePath).put('hangs-at-start', { enabled: true, settings: { endpoint, hang: true } });
  // The guard only turns a hang (the bug under test) into a failure; it asserts no duration.
  let guard: NodeJS.Timeout | undefined;
  const hung = new Promise<Error>((resolve) => (guard = setTimeout(() => resolve(new Error('loadBackend never settled')), 20_000)));
  const loading = loadBackend({ ...backendOf('hangs-at-start', manifestPath), timeouts: { startMs: 200 } }, {}).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  const err = await Promise.race([loading, hung]).finally(() => clearTimeout(guard));
  assert.is(err?.name, 'TimeoutError');
  assert.match(err!.message, 'start of hangs-at-start timed out after 200 ms');
});

test('settings that fail the backend\'s schema are refused before start', async () => {
  const manifestPath = writeBackend('bad-settings', []);
  await new PluginConfigStore(configStorePath).put('bad-settings', { enabled: true, settings: { endpoint: 42 } });
  const err = await loadBackend(backendOf('bad-settings', manifestPath), {}).then(() => undefined, (e: unknown) => e as Error);
  assert.match(err?.message ?? '', 'setting "endpoint"');
});

test.run();
