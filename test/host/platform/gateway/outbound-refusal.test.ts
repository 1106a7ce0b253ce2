import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, json, until, type TestGateway } from '../../../support/gateway.js';
import { startSystemOneFake } from '../../../fakes/system-one-fake.js';
import { startAlertReceiver, type AlertReceiver } from '../../../fakes/alert-receiver.js';
import { webhookTargetId } from '../../../../host/surfaces/workbench/alerts/webhook-targets.js';

// A gateway WITHOUT OUTBOUND_ALLOW_HOSTS: the loopback fakes below stand for what an attacker
// with a settings scope would point the gateway at.
type Fake = Awaited<ReturnType<typeof startSystemOneFake>>;
let judge: Fake;
let receiver: AlertReceiver;
let plainReceiver: AlertReceiver;
let gw: TestGateway;

const send = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const plugin = async (id: string) => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === id);
const deliveries = async () => (await json(await fetch(`${gw.url}/admin/alerts/deliveries`))).deliveries as any[];

test.before(async () => {
  judge = await startSystemOneFake();
  receiver = await startAlertReceiver();
  plainReceiver = await startAlertReceiver({ tls: false });
  gw = await startGateway({ OUTBOUND_ALLOW_HOSTS: '', ALERT_EVAL_INTERVAL_SECONDS: '3600', ALERT_RETRY_BASE_MS: '50', ALERT_WEBHOOK_TIMEOUT: '0.5', ALERT_WEBHOOK_CA_FILE: receiver.caFile!, AUDIT_LOG_ENABLED: 'true' });
});
test.after(async () => {
  await gw?.close();
  await judge?.close();
  await receiver?.close();
  await plainReceiver?.close();
});

test('a judge URL written through the plugin config reaches no loopback address, whatever its spelling', async () => {
  const port = new URL(judge.url).port;
  for (const hosted_url of [`http://2130706433:${port}`, `http://127.1:${port}`, `http://[::ffff:127.0.0.1]:${port}`, `http://localhost:${port}`]) {
    // A key written with the URL (not the environment's): only the address rule stands in the way.
    assert.is((await send('PUT', '/plugins/judge-hosted/config', { settings: { hosted_url, api_key: 'written-key' } })).status, 200, hosted_url);
    await until(async () => (await plugin('judge-hosted'))?.state === 'active');
    const run = await json(await send('POST', '/api/lab/runs', { rows: [{ question: 'q?', quote: 'a quote', expected_answer: 'yes' }] }));
    assert.is.not(run.state, 'succeeded', hosted_url);
  }
  assert.is(judge.requests.length, 0, 'no judgment request reached the loopback judge');
  assert.ok(gw.logs.some((line) => line.includes('egress_denied') && line.includes('judge-hosted')), 'refusals are audited');
  await send('PUT', '/plugins/judge-hosted/config', { settings: { hosted_url: null, api_key: null } });
});

test('an alert-sink plugin refuses plain http (any loopback spelling) and never delivers to a private or metadata address', async () => {
  const port = new URL(plainReceiver.url).port;
  for (const url of [`http://2130706433:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`, 'http://169.254.169.254/hook']) {
    assert.is((await send('PUT', '/plugins/alert-webhook/config', { settings: { url } })).status, 200);
    await until(async () => /plain http is refused/.test((await plugin('alert-webhook'))?.last_error ?? ''));
    assert.is((await plugin('alert-webhook')).state, 'needs-config', url);
  }
  const tlsPort = new URL(receiver.url).port;
  for (const url of [`https://[::ffff:127.0.0.1]:${tlsPort}/hook`, 'https://169.254.169.254/hook']) {
    assert.is((await send('PUT', '/plugins/alert-webhook/config', { settings: { url } })).status, 200);
    await until(async () => (await plugin('alert-webhook'))?.state === 'active');
    const { event_id } = await json(await send('POST', '/admin/alerts/test', { target: 'plugin:alert-webhook' }));
    await until(async () => /refused/.test((await deliveries()).find((d) => d.event_id === event_id)?.last_error ?? ''));
  }
  assert.is(receiver.received.length + plainReceiver.received.length, 0);
  await send('PUT', '/plugins/alert-webhook/config', { enabled: false });
});

test('WEBHOOK_TARGETS written at run time never deliver to a private or metadata address', async () => {
  const targets = [receiver.url.replace('127.0.0.1', '2130706433'), 'https://169.254.169.254/hook', 'https://[fd00:ec2::254]/hook'];
  assert.is((await send('POST', '/api/config', { WEBHOOK_TARGETS: targets.join(',') })).status, 200);
  for (const target of targets) {
    const { event_id } = await json(await send('POST', '/admin/alerts/test', { target: webhookTargetId(target) }));
    await until(async () => /refused: it is a (loopback|link-local|unique-local)/.test((await deliveries()).find((d) => d.event_id === event_id)?.last_error ?? ''), 10_000);
  }
  assert.is(receiver.received.length, 0);
  await send('POST', '/api/config', { WEBHOOK_TARGETS: null });
});

test.run();
