import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, json, until, type TestGateway } from '../../../../support/gateway.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';
import { webhookInstanceId } from '../../../../../host/surfaces/workbench/alerts/webhook-targets.js';

// Each WEBHOOK_TARGETS URL is an instance of alert-webhook, a plugin of its own. The gateway allows
// no private host at run time (OUTBOUND_ALLOW_HOSTS empty): the loopback receiver stands for an
// address an attacker with a settings scope would aim at, which only the operator's environment may name.
let receiver: AlertReceiver;
let gw: TestGateway;

const send = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const plugins = async () => (await json(await fetch(`${gw.url}/plugins`))).plugins as any[];
const plugin = async (id: string) => (await plugins()).find((p) => p.id === id);
const testAlert = async (target: string) => (await json(await send('POST', '/admin/alerts/test', { target }))).event_id as string;
const delivery = async (eventId: string, state: string) =>
  until(async () => {
    const d = (await json(await fetch(`${gw.url}/admin/alerts/deliveries`))).deliveries.find((x: any) => x.event_id === eventId);
    return d?.state === state ? d : undefined;
  }, 10_000);

test.before(async () => {
  receiver = await startAlertReceiver();
  gw = await startGateway({ OUTBOUND_ALLOW_HOSTS: '', ALERT_EVAL_INTERVAL_SECONDS: '3600', ALERT_RETRY_BASE_MS: '50', ALERT_WEBHOOK_CA_FILE: receiver.caFile! });
});
test.after(async () => {
  await gw?.close();
  await receiver?.close();
});

const id = () => webhookInstanceId(receiver.url);
// The same receiver under another URL, given in the environment.
const operatorUrl = () => `${receiver.url}?operator`;
const operatorId = () => webhookInstanceId(operatorUrl());

test('a URL written at run time appears as an instance of alert-webhook and reaches no loopback address', async () => {
  assert.is((await send('POST', '/api/config', { WEBHOOK_TARGETS: receiver.url })).status, 200);
  const instance = await until(async () => ((await plugin(id()))?.state === 'active' ? plugin(id()) : undefined));
  assert.equal([instance.instance_of, instance.kinds, instance.generation, instance.enabled], ['alert-webhook', ['alert-sink'], 1, true]);
  assert.equal((await json(await send('GET', `/plugins/${id()}/config`))).sources, { url: 'config' });
  const failed = await delivery(await testAlert(`plugin:${id()}`), 'failed');
  assert.match(failed.last_error, /refused: it is a loopback/);
  assert.is(failed.attempts, 1, 'refused for good at once');
  assert.is(receiver.received.length, 0);
});

test('a URL given in the environment is the operator\'s: its instance replaces the file\'s and delivers to the same address', async () => {
  gw.env.WEBHOOK_TARGETS = operatorUrl();
  gw.gateway.config.reload();
  await until(async () => (await plugin(operatorId()))?.state === 'active' && !(await plugin(id())));
  assert.equal((await json(await send('GET', `/plugins/${operatorId()}/config`))).sources, { url: 'env' });
  const eventId = await testAlert(`plugin:${operatorId()}`);
  await delivery(eventId, 'delivered');
  assert.equal(receiver.received.map((r) => r.body.event_id), [eventId]);
});

test('its URL is masked everywhere, and its settings are not written over the plugin API', async () => {
  for (const p of ['/plugins', `/plugins/${operatorId()}`, `/plugins/${operatorId()}/config`, '/api/config', '/admin/integrations/webhooks', '/admin/alerts/deliveries']) {
    assert.not.ok((await (await fetch(`${gw.url}${p}`)).text()).includes('/hooks/alerts'), p);
  }
  assert.is((await json(await send('GET', `/plugins/${operatorId()}/config`))).settings.url, '***');
  assert.not.ok(gw.logs.some((l) => l.includes('/hooks/alerts')), 'nor in the logs');
  const refused = await send('PUT', `/plugins/${operatorId()}/config`, { settings: { url: 'https://elsewhere.example/hook' } });
  assert.is(refused.status, 400);
  assert.match((await json(refused)).detail, /its settings come from the host \(WEBHOOK_TARGETS\)/);
  assert.is((await plugin(operatorId())).generation, 1, 'nothing reloaded');
});

test('instances come and go with the setting: added, listed as targets, removed by id and gone from /plugins', async () => {
  delete gw.env.WEBHOOK_TARGETS;
  gw.gateway.config.reload();
  await until(async () => (await plugin(id()))?.state === 'active' && !(await plugin(operatorId())));
  const added = await send('POST', '/admin/integrations/webhooks/targets', { url: 'https://hooks.example.net/second-secret' });
  assert.is(added.status, 201);
  const second = (await json(added)).id as string;
  assert.equal(second, `plugin:${webhookInstanceId('https://hooks.example.net/second-secret')}`);
  const targets = (await json(await fetch(`${gw.url}/admin/integrations/webhooks`))).targets;
  assert.equal(targets.map((t: any) => [t.id, t.instance_of]), [[`plugin:${id()}`, 'alert-webhook'], [second, 'alert-webhook']]);
  await until(async () => (await plugin(second.slice('plugin:'.length)))?.instance_of === 'alert-webhook');
  assert.is((await send('DELETE', `/admin/integrations/webhooks/targets/${second}`)).status, 200);
  assert.is((await send('DELETE', `/admin/integrations/webhooks/targets/plugin:${id()}`)).status, 200);
  await until(async () => !(await plugins()).some((p) => p.instance_of === 'alert-webhook'));
  assert.ok(await plugin('alert-webhook'), 'the manifest\'s own plugin stays');
  assert.equal((await json(await fetch(`${gw.url}/admin/integrations/webhooks`))).targets, []);
  assert.is((await send('POST', '/admin/alerts/test', { target: `plugin:${id()}` })).status, 404, 'a removed target is no target');
});

test.run();
