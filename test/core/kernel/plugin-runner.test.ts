import 'reflect-metadata';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container } from 'tsyringe';
import { ConfigError, definePlugin, z, type PluginContext, type PluginDefinition } from '../../../core/sdk/index.js';
import { PluginMetricsFactory } from '../../../core/kernel/plugin-metrics.js';
import { startGeneration, type GenerationRequest } from '../../../core/kernel/plugin-runner.js';

const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-runner-'));
// Start deadlines are unref'd timers (they must not hold a host open); this keeps the test up.
const keepAlive = setInterval(() => {}, 1000);
test.after(() => {
  clearInterval(keepAlive);
  rmSync(dataDir, { recursive: true, force: true });
});

const request = (definition: PluginDefinition, more: Partial<GenerationRequest> = {}): GenerationRequest => ({
  pluginId: 'runner-test',
  generation: 1,
  definition,
  stored: {},
  env: {},
  egress: [],
  dataDir,
  logger: pino({ level: 'silent' }),
  metrics: new PluginMetricsFactory(new Registry()),
  container: container.createChildContainer(),
  emit: () => {},
  ...more,
});

const recording = (seen: PluginContext[], start: (ctx: PluginContext) => unknown = () => ({ providers: {} })) =>
  definePlugin({
    settings: z.object({ endpoint: z.string().default('https://api.example.com/v1'), region: z.string().optional() }),
    env: { region: 'RUNNER_REGION' },
    start: (ctx) => {
      seen.push(ctx as PluginContext);
      return start(ctx as PluginContext) as never;
    },
  });

test('settings are resolved (defaults, store, env) and `settings:` egress entries become the setting\'s host', async () => {
  const seen: PluginContext[] = [];
  const run = await startGeneration(request(recording(seen), { stored: { endpoint: 'http://127.0.0.1:8443/x' }, env: { RUNNER_REGION: 'eu' }, egress: ['settings:endpoint', 'static.example.org'] }));
  assert.equal({ ...seen[0]!.settings }, { endpoint: 'http://127.0.0.1:8443/x', region: 'eu' });
  assert.equal(run.settings.sources, { endpoint: 'store', region: 'env' });
  assert.ok(seen[0]!.http.allows('http://127.0.0.1:8443/other'));
  assert.ok(seen[0]!.http.allows('https://static.example.org/'));
  assert.not.ok(seen[0]!.http.allows('https://api.example.com/v1'), 'the default endpoint was replaced by the stored one');
  await run.close('done');
  assert.ok(seen[0]!.signal.aborted, 'close disposes the context');
});

test('settings that fail the schema are refused with a ConfigError before start runs', async () => {
  const seen: PluginContext[] = [];
  const err = await startGeneration(request(recording(seen), { stored: { endpoint: 42 } })).catch((e: unknown) => e);
  assert.instance(err, ConfigError);
  assert.is(seen.length, 0);
});

test('a start that never resolves fails with a TimeoutError and its context is disposed', async () => {
  const seen: PluginContext[] = [];
  const err = (await startGeneration(request(recording(seen, () => new Promise(() => {})), { timeouts: { startMs: 50 } })).catch((e: unknown) => e)) as Error;
  assert.is(err.name, 'TimeoutError');
  assert.match(err.message, 'start of runner-test timed out after 50 ms');
  assert.ok(seen[0]!.signal.aborted);
});

test('close disposes the context even when the plugin\'s stop throws, and throws that error', async () => {
  const seen: PluginContext[] = [];
  const run = await startGeneration(request(recording(seen, () => ({ providers: {}, stop: () => { throw new Error('stop broke'); } }))));
  const err = (await run.close('done').catch((e: unknown) => e)) as Error;
  assert.is(err.message, 'stop broke');
  assert.ok(seen[0]!.signal.aborted);
});

test.run();
