import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container } from 'tsyringe';
import { CONTRACT_VERSIONS } from '../../../core/sdk/index.js';
import { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { DeclarativeRuntimes } from '../../../core/kernel/declarative-runtimes.js';
import { GenerationFactory } from '../../../core/kernel/generation-factory.js';
import { KernelEvents } from '../../../core/kernel/kernel-events.js';
import { PluginMetricsFactory } from '../../../core/kernel/plugin-metrics.js';
import { DefinitionResolver } from '../../../core/kernel/plugin-definition.js';
import { PluginRecords } from '../../../core/kernel/plugin-record.js';
import { PluginInstances } from '../../../core/kernel/plugin-instances.js';
import { Reconciler } from '../../../core/kernel/reconciler.js';
import { retryDelay } from '../../../core/kernel/retry-backoff.js';
import { tempDir } from '../../support/gateway.js';
import { writePluginFolder } from '../../support/plugin-folder.js';

// dist/test/core/kernel -> the package root
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const roots = { packageRoot, buildRoot: path.join(packageRoot, 'dist') };

function setup() {
  const dir = tempDir('switchboard-reconciler-');
  const events = new KernelEvents();
  const records = new PluginRecords(events);
  const store = new PluginConfigStore(path.join(dir, 'plugins.config.json'));
  const logs: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void logs.push(l) });
  const factory = new GenerationFactory({
    env: {},
    dataDir: dir,
    logger,
    metrics: new PluginMetricsFactory(new Registry()),
    container: container.createChildContainer(),
    events,
    timeouts: { startMs: 2000, stopMs: 1000, drainMs: 1000 },
    // The lifecycle under test, not isolation (test/core/kernel/isolation.test.ts): plugins run in this process.
    isolation: () => 'in-process',
  });
  const delays: number[] = [];
  const due: Array<() => void> = [];
  const searchDir = path.join(dir, 'plugins');
  mkdirSync(searchDir);
  const reconciler: Reconciler = new Reconciler({
    records,
    resolver: new DefinitionResolver(roots, new DeclarativeRuntimes()),
    factory,
    configStore: store,
    instances: new PluginInstances(),
    searchPaths: [searchDir],
    facts: () => ({ hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS, declarativeBlocks: [] }),
    env: {},
    logger,
    backoff: { initialMs: 100, maxMs: 250 },
    requestReload: () => {},
    schedule: (fn, ms) => {
      delays.push(ms);
      due.push(fn);
      return () => {};
    },
  });
  return { dir, searchDir, records, store, reconciler, delays, due, logs };
}

test('retry delays double from the first delay up to the ceiling', () => {
  assert.equal([1, 2, 3, 4, 5].map((n) => retryDelay(n, { initialMs: 100, maxMs: 250 })), [100, 200, 250, 250, 250]);
});

test('a start that is not ready yet is retried on the backoff schedule until it starts', async () => {
  const s = setup();
  const folder = path.join(s.searchDir, 'slowpoke');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify({
    manifestVersion: 1, id: 'slowpoke', name: 'n', version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress: [], entry: 'index.js',
    // It counts its attempts in the process's globals: one process across retries.
    isolation: 'in-process',
  }));
  writeFileSync(path.join(folder, 'index.js'), `import { definePlugin, NotReadyError } from 'switchboard/sdk';
globalThis.__slowpokeAttempts = 0;
export default definePlugin({
  start() {
    if (++globalThis.__slowpokeAttempts < 4) throw new NotReadyError('warming up');
    return { providers: { retrieval: { index: async () => ({ indexed: 0 }), search: async () => [], delete: async () => ({ deleted: 0 }) } } };
  },
});
`);
  try {
    await s.reconciler.scan();
    const record = s.records.get('slowpoke')!;
    assert.is(record.state, 'retrying');
    for (let i = 0; i < 3; i++) await (s.due.shift()!(), s.reconciler.reconcileId('slowpoke'));
    assert.is(record.state, 'active');
    assert.equal(s.delays, [100, 200, 250]);
    assert.is(record.lastError, undefined, 'last_error is cleared when a generation starts');
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a failing start keeps the previous generation serving, is not retried on unchanged inputs, and recovers on a fix', async () => {
  const s = setup();
  writePluginFolder(s.searchDir, 'keeper');
  try {
    await s.reconciler.scan();
    const record = s.records.get('keeper')!;
    assert.is(record.active?.number, 1);
    await s.store.put('keeper', { enabled: true, settings: { fail: true } });
    await s.reconciler.reconcileId('keeper');
    assert.is(record.state, 'active');
    assert.is(record.active?.number, 1);
    assert.match(record.lastError ?? '', /reload failed, generation 1 keeps serving: start refused by settings/);
    const counter = record.counter;
    await s.reconciler.scan();
    assert.is(record.counter, counter, 'the same failing inputs are not started again');
    assert.is(s.logs.filter((l) => l.includes('plugin reload failed; the previous generation keeps serving')).length, 1, 'and not logged again');
    await s.store.put('keeper', { enabled: true, settings: { fail: false } });
    await s.reconciler.reconcileId('keeper');
    assert.is(record.active?.number, counter + 1);
    assert.is(record.lastError, undefined);
  } finally {
    await s.reconciler.stopAll();
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test('a plugin waiting for configuration is logged once, at debug level (the start-up banner sums them up)', async () => {
  const s = setup();
  const folder = path.join(s.searchDir, 'unset');
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'manifest.json'), JSON.stringify({
    manifestVersion: 1, id: 'unset', name: 'n', version: '1.0.0', description: 'd', author: 'a', host: '^0.1.0',
    provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], capabilities: [], egress: [], entry: 'index.js',
  }));
  writeFileSync(path.join(folder, 'index.js'), `import { definePlugin, ConfigError } from 'switchboard/sdk';
export default definePlugin({ start() { throw new ConfigError('apiKey is required', 'apiKey'); } });
`);
  try {
    for (let i = 0; i < 5; i++) await s.reconciler.scan();
    assert.is(s.records.get('unset')!.state, 'needs-config');
    const lines = s.logs.map((l) => JSON.parse(l) as { level: number; plugin?: string; msg: string }).filter((l) => l.plugin === 'unset');
    assert.is(lines.length, 1, JSON.stringify(lines));
    assert.is(lines[0]!.level, 20, 'debug');
    assert.match(lines[0]!.msg, /needs-config/);
  } finally {
    rmSync(s.dir, { recursive: true, force: true });
  }
});

test.run();
