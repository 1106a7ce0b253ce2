import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container } from 'tsyringe';
import { definePlugin, z } from '../../../core/sdk/index.js';
import type { Manifest } from '../../../core/manifest/index.js';
import { GenerationFactory } from '../../../core/kernel/generation-factory.js';
import { KernelEvents } from '../../../core/kernel/kernel-events.js';
import { PluginMetricsFactory } from '../../../core/kernel/plugin-metrics.js';
import type { ResolvedPlugin } from '../../../core/kernel/plugin-definition.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-genfactory-'));
const logs: string[] = [];
const stops: string[] = [];
const events = new KernelEvents();
const stopped: number[] = [];
events.on('generation-stopped', (e) => stopped.push(e.generation));

const factory = new GenerationFactory({
  env: {},
  dataDir,
  logger: pino({ level: 'debug' }, { write: (l: string) => void logs.push(l) }),
  metrics: new PluginMetricsFactory(new Registry()),
  container: container.createChildContainer(),
  events,
  timeouts: { startMs: 1000, stopMs: 1000, drainMs: 30 },
});

const definition = definePlugin({
  settings: z.object({}),
  start: () => ({
    providers: { retrieval: { index: async () => ({ indexed: 0 }), search: async () => [], delete: async () => ({ deleted: 0 }) } },
    stop: (reason: string) => void stops.push(reason),
  }),
});
const resolved: ResolvedPlugin = { key: 'k', block: undefined, definition, schema: definition.settings, envMap: {} };
const manifest = { id: 'drainer', provides: [{ kind: 'retrieval', contract: 'retrieval@^1' }], egress: [] } as unknown as Manifest;

// The drain timer is unref'd (it must not hold a host open); this keeps the test process up.
const keepAlive = setInterval(() => {}, 1000);
test.after(() => {
  clearInterval(keepAlive);
  rmSync(dataDir, { recursive: true, force: true });
});

test('a generation whose leases are released drains cleanly, then stops', async () => {
  const { generation } = await factory.build('drainer', manifest, resolved, {}, 1);
  const lease = generation.acquire('retrieval');
  const retiring = factory.retire(generation, 'replaced');
  assert.is(generation.state, 'draining');
  lease.release();
  assert.is(await retiring, true);
  assert.is(generation.state, 'stopped');
  assert.equal(stops, ['replaced']);
  assert.equal(stopped, [1]);
});

test('a lease held past the drain deadline does not keep the generation: it is stopped with a warning', async () => {
  const { generation } = await factory.build('drainer', manifest, resolved, {}, 2);
  generation.acquire('retrieval'); // never released
  assert.is(await factory.retire(generation, 'replaced again'), false);
  assert.is(generation.state, 'stopped');
  assert.is(stops.at(-1), 'replaced again');
  assert.ok(logs.some((l) => l.includes('drain deadline passed') && l.includes('"leases":1')), logs.join('\n'));
});

test.run();
