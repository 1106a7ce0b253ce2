import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { AuthError, FAX_STATUS_EVENT, NotAcceptedError, NotReadyError, UncertainOutcomeError, type FaxStatusUpdate, type HealthResult } from 'switchboard/sdk';
import { startPlugin, type StartedPlugin } from 'switchboard/sdk/testing';
import sip from '../../../plugins/sip/index.js';
import { AmiFake } from '../../fakes/ami-fake.js';
import { storeJobDocument, type StoredJob } from '../../host/surfaces/fax/documents/stored-job.js';

const PASSWORD = 'amisecret';
let fake: AmiFake;
const started: StartedPlugin[] = [];
const jobs: StoredJob[] = [];
const logLines: string[] = [];

async function startSip(settings: Record<string, unknown> = {}, port = fake.port): Promise<StartedPlugin> {
  const plugin = await startPlugin(sip, {
    pluginId: 'sip',
    settings: { host: '127.0.0.1', port, username: 'switchboard', password: PASSWORD, pingIntervalMs: 0, reconnectInitialMs: 50, reconnectMaxMs: 200, ...settings },
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

async function healthOf(plugin: StartedPlugin) {
  return plugin.instance.health!();
}

test.before(async () => {
  fake = await AmiFake.start({ username: 'switchboard', secret: PASSWORD, version: '9.0.0' });
});

test.after(async () => {
  for (const plugin of started) await plugin.stop();
  for (const stored of jobs) await stored.cleanup();
  await fake.close();
});

test('start logs in; health reports the session and the AMI version from the banner', async () => {
  const plugin = await startSip();
  assert.equal(await healthOf(plugin), { ok: true, info: { connected: true, loggedIn: true, amiVersion: '9.0.0' } });
  const login = fake.actionsNamed('Login').at(-1)!;
  assert.match(login.raw, /^Action: Login\r\nActionID: [^\r\n]+\r\nUsername: switchboard\r\nSecret: amisecret\r\n\r\n$/);
});

test('a refused login makes start fail with AuthError (needs-config), without retrying', async () => {
  const failedBefore = fake.failedLogins;
  try {
    await startSip({ password: 'wrong-password' });
    assert.unreachable('start should fail');
  } catch (err) {
    assert.instance(err, AuthError);
    assert.match((err as Error).message, /Authentication failed/);
  }
  await new Promise((r) => setTimeout(r, 300));
  assert.is(fake.failedLogins, failedBefore + 1, 'no reconnect loop after a refused login');
});

test('an unreachable AMI makes start fail with NotReadyError (retried by the host)', async () => {
  const closed = net.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  try {
    await startSip({}, port);
    assert.unreachable('start should fail');
  } catch (err) {
    assert.instance(err, NotReadyError);
  }
});

test('keep-alive pings go out on the interval', async () => {
  const before = fake.actionsNamed('Ping').length;
  await startSip({ pingIntervalMs: 40 });
  await fake.waitFor(() => fake.actionsNamed('Ping').length >= before + 2, 2000, 'two pings');
});

test('a connection lost mid-call fails the job; the client reconnects, logs in again and sends again', async () => {
  const plugin = await startSip();
  const fax = plugin.instance.providers.fax!;
  const first = await job();
  const logins = fake.successfulLogins;
  fake.script({ kind: 'drop-after-accept' });
  const result = await fax.send({ jobId: first.jobId, to: '5551234567', document: first.document, publicBaseUrl: '' });
  assert.is(result.status, 'in_progress');
  const failed = await resultOf(plugin, first.jobId);
  assert.equal([failed.status, failed.error], ['FAILED', 'AMI connection lost']);

  await fake.waitFor(() => fake.successfulLogins > logins, 3000, 'a new login');
  await fake.waitFor(() => (plugin.instance.health!() as HealthResult).ok, 3000, 'health ok');
  const second = await job();
  const again = await fax.send({ jobId: second.jobId, to: '5551234567', document: second.document, publicBaseUrl: '' });
  assert.is(again.status, 'in_progress');
  assert.is((await resultOf(plugin, second.jobId)).status, 'SUCCESS');
});

test('a connection lost after the Originate was written but before its reply is an UncertainOutcomeError', async () => {
  const plugin = await startSip();
  const fax = plugin.instance.providers.fax!;
  const { jobId, document } = await job();
  fake.script({ kind: 'drop-before-reply' });
  try {
    await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should be uncertain');
  } catch (err) {
    assert.instance(err, UncertainOutcomeError);
  }
});

test('while disconnected a send is NotAcceptedError: nothing was dialled', async () => {
  const plugin = await startSip({ reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 });
  const fax = plugin.instance.providers.fax!;
  fake.dropAll();
  await fake.waitFor(() => !(plugin.instance.health!() as HealthResult).ok, 2000, 'health to turn false');
  assert.equal(await healthOf(plugin), { ok: false, info: { connected: false, loggedIn: false, amiVersion: '9.0.0' } });
  const before = fake.originates.length;
  const { jobId, document } = await job();
  try {
    await fax.send({ jobId, to: '5551234567', document, publicBaseUrl: '' });
    assert.unreachable('should not be accepted');
  } catch (err) {
    assert.instance(err, NotAcceptedError);
  }
  assert.is(fake.originates.length, before);
});

test('stop logs off and closes the session', async () => {
  // The earlier tests' plugins are stopped first, so the newest connection is this plugin's.
  for (const earlier of started.splice(0)) await earlier.stop();
  const plugin = await startSip();
  const mine = fake.connections;
  assert.ok(fake.isOpen(mine));
  await plugin.stop();
  await fake.waitFor(() => !fake.isOpen(mine), 2000, 'the session to close');
  assert.ok(fake.actionsNamed('Logoff').some((a) => a.connection === mine));
});

test('the password never reaches the logs, and every packet was well-formed', () => {
  assert.ok(logLines.some((l) => l.includes('AMI logged in')));
  for (const line of logLines) assert.not.ok(line.includes(PASSWORD), line);
  assert.equal(fake.protocolErrors, []);
});

test.run();
