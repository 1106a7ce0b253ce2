import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadBackend } from '../../../../../host/surfaces/search/indexing/indexer/load-backend.js';
import { DEFAULT_ISOLATION_LIMITS } from '../../../../../core/kernel/isolation/isolation-mode.js';
import { ROOT, tempDir, writeFixturePlugin } from '../../../../support/gateway.js';

// The indexer child runs the retrieval backend as the kernel does: third-party code the kernel
// isolates is started in an isolate there too, and its entry is never imported in the child.

const MARK = '__switchboardIndexerTopLevelRan';
let dir: string;

test.before(() => {
  dir = tempDir('switchboard-load-backend-');
  writeFixturePlugin(dir, 'third', 'echo-retrieval', { isolation: 'process' });
  const echo = pathToFileURL(path.join(ROOT, 'dist/test/fixtures/plugins/echo-retrieval/index.js')).href;
  writeFileSync(path.join(dir, 'third', 'entry.mjs'), `globalThis.${MARK} = true;\nexport { default } from ${JSON.stringify(echo)};\n`);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

const backend = (isolated: boolean) => ({
  pluginId: 'third',
  manifestPath: path.join(dir, 'third', 'manifest.json'),
  configStorePath: path.join(dir, 'plugins.config.json'),
  dataDir: path.join(dir, 'data'),
  packageRoot: ROOT,
  timeouts: { startMs: 60_000 },
  ...(isolated ? { isolation: { mode: 'process' as const, limits: DEFAULT_ISOLATION_LIMITS } } : {}),
});

test('an isolated backend serves the run from its isolate; its top-level code never ran here', async () => {
  const loaded = await loadBackend(backend(true), { ECHO_GREETING: 'hi' });
  try {
    const hits = await loaded.provider.search('c', 'q', 1);
    assert.is(hits[0]!.text, 'hi from generation 0', 'the environment map crossed, described by the probe');
    assert.is((globalThis as Record<string, unknown>)[MARK], undefined);
  } finally {
    await loaded.stop();
  }
});

test('the same backend not isolated is imported here (what the test above tells apart)', async () => {
  const loaded = await loadBackend(backend(false), {});
  await loaded.stop();
  assert.is((globalThis as Record<string, unknown>)[MARK], true);
});

test.run();
