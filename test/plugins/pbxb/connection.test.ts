import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { AuthError, ConfigError, FAX_STATUS_EVENT, NotAcceptedError, NotReadyError, UncertainOutcomeError, type FaxStatusUpdate, type HealthResult } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import pbxb from '../../../plugins/pbxb/index.js';
import { EslFake } from '../../fakes/esl-fake.js';
import { storeJobDocument, type StoredJob } from '../../host/surfaces/fax/documents/stored-job.js';

let fake: EslFake;
const started: StartedPlugin[] = [];
const jobs: StoredJob[] = [];
const logLines: string[] = [];

async function startPbxb(settings: Record<string, unknown> = {}, port = fake.port): Promise<StartedPlugin> {
  const plugin = await startPlugin(pbxb, {
    pluginId: 'pbxb',
    settings: { port, gateway: 'carrier', reconnectInitialMs: 50, reconnectMaxMs: 200, ...settings },
    logLines,
  });
  started.push(plugin);
  return plugin;
}

async function job(pages = 2): Promise<StoredJob> {
  const stored = await storeJobDocument({ pages });
  jobs.push(stored);
  return stored;
}

const resultOf = (plugin: StartedPlugin, jobId: string) =>
  plugin.nextEvent(FAX_STATUS_EVENT, (p) => (p as FaxStatusUpdate).jobId === jobId) as Promise<FaxStatusUpdate>;
const healthy = (plugin: StartedPlugin) => (plugin.instance.health!() as HealthResult).ok;

test.before(async () => {
  // The FreeSWITCH default password: the plugin's default too.
  fake = await EslFake.start();
});

test.after(async () => {
  for (const plugin of started) await plugin.stop();
  for (const stored of jobs) await stored.cleanup();
  await fake.close();
});

test('defaults: 127.0.0.1 and password ClueCon; the gateway is required', async () => {
  const plugin = await startPbxb();
  assert.ok(healthy(plugin));
  try {
    await startPlugin(pbxb, { settings: { port: fake.port } });
    assert.unreachable('a missing gateway should be a config error');
  } catch (err) {
    assert.instance(err, ConfigError);
    assert.is((err as ConfigError).field, 'gateway');
  }
});

test('a refused password makes start fail with AuthError, without retrying', async () => {
  const before = fake.failedAuths;
  try {
    await startPbxb({ password: 'not-the-password' });
    assert.unreachable('start should fail');
  } catch (err) {
    assert.instance(err, AuthError);
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.is(fake.failedAuths, before + 1);
  assert.not.ok(logLines.some((l) => l.includes('not-the-password')));
});

test('an unreachable event socket makes start fail with NotReadyError', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  try {
    await startPbxb({}, port);
    assert.unreachable('start should fail');
  } catch (err) {
    assert.instance(err, NotReadyError);
  }
});

test('a connection lost mid-call fails the job; the client reconnects, re-subscribes and sends again', async () => {
  const plugin = await startPbxb();
  const fax = plugin.instance.providers.fax!;
  const first = await job();
  const auths = fake.successfulAuths;
  fake.script({ kind: 'drop-after-accept' });
  assert.is((await fax.send({ jobId: first.jobId, to: '5551234567', document: first.document, publicBaseUrl: '' })).status, 'in_progress');
  const failed = await resultOf(plugin, first.jobId);
  assert.equal([failed.status, failed.error], ['FAILED', 'ESL connection lost']);

  await fake.waitFor(() => fake.successfulAuths > auths && healthy(plugin), 3000, 're-authentication');
  const latest = fake.connections;
  await fake.waitFor(() => fake.commands.some((c) => c.connection === latest && c.line.startsWith('event plain ')), 2000, 're-subscription');
  const second = await job();
  await fax.send({ jobId: second.jobId, to: '5551234567', document: second.document, publicBaseUrl: '' });
  assert.is((await resultOf(plugin, second.jobId)).status, 'SUCCESS');
});

test('a connection lost before the bgapi reply is an UncertainOutcomeError', async () => {
  const plugin = await startPbxb();
  const { jobId, document } = await job();
  fake.script({ kind: 'drop-before-reply' });
  try {
    await plugin.instance.providers.fax!.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should be uncertain');
  } catch (err) {
    assert.instance(err, UncertainOutcomeError);
  }
});

test('while disconnected a send is NotAcceptedError and health says so', async () => {
  const plugin = await startPbxb({ reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 });
  fake.dropAll();
  await fake.waitFor(() => !healthy(plugin), 2000, 'health to turn false');
  assert.equal(plugin.instance.health!(), { ok: false, info: { connected: false, authenticated: false } });
  const before = fake.originates.length;
  const { jobId, document } = await job();
  try {
    await plugin.instance.providers.fax!.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should not be accepted');
  } catch (err) {
    assert.instance(err, NotAcceptedError);
  }
  assert.is(fake.originates.length, before);
});

test('stop says exit and closes the socket', async () => {
  // The earlier tests' plugins are stopped first, so the newest connection is this plugin's.
  for (const earlier of started.splice(0)) await earlier.stop();
  const plugin = await startPbxb();
  const mine = fake.connections;
  assert.ok(fake.isOpen(mine));
  await plugin.stop();
  await fake.waitFor(() => !fake.isOpen(mine), 2000, 'the socket to close');
  assert.ok(fake.commands.some((c) => c.connection === mine && c.line === 'exit'));
});

test('the default password never reaches the logs; every command was well-formed', () => {
  for (const line of logLines) assert.not.ok(line.includes('ClueCon'), line);
  assert.equal(fake.protocolErrors, []);
});

test.run();
