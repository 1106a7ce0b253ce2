import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyWebhookSignature } from '../../../../../clients/typescript/src/index.js';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { SWEEP_GRACE_MS } from '../../../../../host/surfaces/fax/status-events/event-sweep.js';
import { gatewayDb } from '../../../../support/database.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/**
 * Status webhooks against a real receiver on loopback: signed deliveries in event order per job,
 * retries after 500 and timeouts, none after a 4xx, redelivery, masking by the key's scopes, and
 * an event fired before a restart delivered once after it.
 */
const KEY = 'status-webhooks-admin-5e1f';
const SIGNING = 'callback-signing-secret-93ad';
const SIM_SECRET = 'fax-sim-webhook-secret-1b7c';
let gw: TestGateway;
let receiver: AlertReceiver;
let pdf: Buffer;

const call = (method: string, path: string, body?: unknown, key = KEY) =>
  fetch(`${gw.url}${path}`, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function mint(scopes: string[]): Promise<string> {
  const res = await call('POST', '/admin/api-keys', { name: `k-${scopes.join('-')}`, scopes });
  assert.is(res.status, 201, await res.clone().text());
  return ((await res.json()) as { token: string }).token;
}

async function submit(to: string, callbackPath: string, key = KEY): Promise<string> {
  const form = new FormData();
  form.set('to', to);
  form.set('callback_url', `${receiver.url}?${callbackPath}`);
  form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  const res = await fetch(`${gw.url}/fax`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  assert.is(res.status, 202, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

/** An inbound fax through fax-sim's signed hook. */
async function receiveInbound(): Promise<string> {
  const body = JSON.stringify({ from: '+15550004444', to: '+15550005555', pdf_base64: pdf.toString('base64') });
  const signature = createHmac('sha256', SIM_SECRET).update(body).digest('hex');
  const res = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': signature }, body });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

const requestsTo = (tag: string) => receiver.received.filter((r) => r.path?.endsWith(`?${tag}`));
const typesTo = (tag: string) => requestsTo(tag).map((r) => `${r.body.type}:${r.answered}`);

type Delivery = { id: string; event_id: string; event_type: string; state: string; attempts: number; last_status: number | null; subject_id: string; subscription_id: string | null };
async function deliveriesOf(subject: string, key = KEY): Promise<Delivery[]> {
  return (await json(await call('GET', `/webhooks/deliveries?subject_id=${subject}`, undefined, key))).deliveries as Delivery[];
}
const finishedDeliveries = (subject: string, n: number, key = KEY) =>
  until(async () => {
    const list = await deliveriesOf(subject, key);
    return list.length === n && list.every((d) => d.state !== 'pending') && list;
  }, 15000, 40);

const env = () => ({
  API_KEY: KEY,
  FAX_BACKEND: 'fax-sim',
  FAX_SIM_DELAY_MS: '100',
  FAX_SIM_SECRET: SIM_SECRET,
  FAX_DISPATCH_POLL_MS: '50',
  INBOUND_ENABLED: 'true',
  ALERT_ALLOW_HTTP_LOOPBACK: 'true',
  WEBHOOK_SIGNING_SECRET: SIGNING,
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_TIMEOUT_SECONDS: '2',
  WEBHOOK_DELIVERY_POLL_MS: '20',
  AUDIT_LOG_ENABLED: 'true',
});

test.before(async () => {
  pdf = await makePdf(1);
  receiver = await startAlertReceiver({ tls: false });
  gw = await startGateway(env());
  await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
});
test.after(async () => {
  await gw?.close();
  await receiver?.close();
});

test('a callback_url hears queued, sending and delivered in order, each signed and verifiable; the number masked for a key without fax:read', async () => {
  const sender = await mint(['fax:send', 'webhooks:manage']);
  const id = await submit('+15550000001', 'order', sender);
  // A receiver deduplicates on the event id (a slow first answer may be retried): one of each, in order.
  const distinct = () => requestsTo('order').filter((r, i, all) => all.findIndex((o) => o.body.id === r.body.id) === i);
  await until(() => distinct().length === 3, 15000, 40);
  const got = distinct();
  assert.equal(got.map((r) => r.body.type), ['fax.queued', 'fax.sending', 'fax.delivered']);
  for (const r of got) {
    assert.is(r.headers['x-switchboard-event-id'], r.body.id);
    assert.is(r.headers['x-switchboard-event'], r.body.type);
    assert.is(r.body.data.id, id);
    assert.is(r.body.data.to, '***0001');
    const verdict = await verifyWebhookSignature({ body: r.raw!, signature: r.headers['x-switchboard-signature'] as string, secret: SIGNING });
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
    assert.is((await verifyWebhookSignature({ body: r.raw!, signature: r.headers['x-switchboard-signature'] as string, secret: 'another-secret' })).ok, false);
    assert.is((await verifyWebhookSignature({ body: `${r.raw} `, signature: r.headers['x-switchboard-signature'] as string, secret: SIGNING })).ok, false);
  }
  assert.is(got[2]!.body.data.status, 'SUCCESS');
  assert.is(new Set(got.map((r) => r.body.id)).size, 3);
  // A signature replayed after the window is refused by the verifier.
  const t = Number(/t=(\d+)/.exec(got[0]!.headers['x-switchboard-signature'] as string)![1]);
  assert.equal(await verifyWebhookSignature({ body: got[0]!.raw!, signature: got[0]!.headers['x-switchboard-signature'] as string, secret: SIGNING, now: t + 301 }), { ok: false, reason: 'outside_replay_window' });
  // The sender sees its callback deliveries; another key does not.
  assert.is((await finishedDeliveries(id, 3, sender)).every((d) => d.state === 'delivered' && d.subscription_id === null), true);
  assert.equal(await deliveriesOf(id), []);
});

test('a 500 is retried with the same event id, and the job\'s later events wait behind it', async () => {
  receiver.next(500, 500);
  const id = await submit('+15550000001', 'retry');
  const list = await finishedDeliveries(id, 3);
  assert.equal(typesTo('retry'), ['fax.queued:500', 'fax.queued:500', 'fax.queued:200', 'fax.sending:200', 'fax.delivered:200']);
  assert.is(new Set(requestsTo('retry').slice(0, 3).map((r) => r.headers['x-switchboard-event-id'])).size, 1);
  const queued = list.find((d) => d.event_type === 'fax.queued')!;
  assert.equal([queued.state, queued.attempts, queued.last_status], ['delivered', 3, 200]);
  assert.is(requestsTo('retry')[0]!.body.data.to, '+15550000001');
});

test('a receiver that does not answer in time is retried', async () => {
  receiver.next('hang');
  const id = await submit('+15550000001', 'timeout');
  const list = await finishedDeliveries(id, 3);
  assert.equal(typesTo('timeout'), ['fax.queued:hang', 'fax.queued:200', 'fax.sending:200', 'fax.delivered:200']);
  assert.equal(list.map((d) => [d.event_type, d.state, d.attempts]).sort(), [['fax.delivered', 'delivered', 1], ['fax.queued', 'delivered', 2], ['fax.sending', 'delivered', 1]]);
});

let subscriber: string;
let subscriptionId: string;

test('subscriptions: the secret is shown once; a 4xx is not retried; a failed delivery is redelivered with its event id', async () => {
  subscriber = await mint(['webhooks:manage', 'inbound:list']);
  const created = await call('POST', '/webhooks/subscriptions', { url: `${receiver.url}?sub`, events: ['inbound.received'] }, subscriber);
  assert.is(created.status, 201, await created.clone().text());
  const sub = (await created.json()) as { id: string; secret: string };
  subscriptionId = sub.id;
  assert.match(sub.secret, /^whsec_/);
  const listed = await json(await call('GET', '/webhooks/subscriptions', undefined, subscriber));
  assert.equal(listed.subscriptions.map((s: { id: string }) => s.id), [sub.id]);
  assert.not.ok('secret' in listed.subscriptions[0]);
  assert.equal(await json(await call('GET', '/webhooks/subscriptions')), { subscriptions: [] });

  receiver.next(400);
  const inbound = await receiveInbound();
  const [failed] = await finishedDeliveries(inbound, 1, subscriber);
  assert.equal([failed!.state, failed!.attempts, failed!.last_status, failed!.subscription_id], ['failed', 1, 400, sub.id]);
  assert.equal(typesTo('sub'), ['inbound.received:400']);
  const first = requestsTo('sub')[0]!;
  assert.is(first.body.data.from, '***4444');
  assert.is((await verifyWebhookSignature({ body: first.raw!, signature: first.headers['x-switchboard-signature'] as string, secret: sub.secret })).ok, true);

  assert.is((await call('POST', `/webhooks/deliveries/${failed!.id}/redeliver`)).status, 404);
  const again = await call('POST', `/webhooks/deliveries/${failed!.id}/redeliver`, undefined, subscriber);
  assert.is(again.status, 202);
  const redelivered = await until(async () => {
    const d = (await json(await call('GET', `/webhooks/deliveries/${failed!.id}`, undefined, subscriber))) as Delivery;
    return d.state === 'delivered' && d;
  }, 10000);
  assert.is(redelivered.last_status, 200);
  assert.equal(typesTo('sub'), ['inbound.received:400', 'inbound.received:200']);
  assert.is(requestsTo('sub')[1]!.headers['x-switchboard-event-id'], first.headers['x-switchboard-event-id']);
  const bySubscription = await json(await call('GET', `/webhooks/deliveries?subscription_id=${sub.id}`, undefined, subscriber));
  assert.equal(bySubscription.deliveries.map((d: Delivery) => d.id), [failed!.id]);
});

test('an event fired before a restart is delivered once after it', async () => {
  await gw.gateway.surfaces.fax.statusEvents.delivery.stop();
  const inbound = await receiveInbound();
  const [pending] = await deliveriesOf(inbound, subscriber);
  assert.is(pending!.state, 'pending');
  await gw.gateway.close();
  gw = await startGateway(gw.env, { dataDir: gw.dataDir });
  const [done] = await finishedDeliveries(inbound, 1, subscriber);
  assert.equal([done!.state, done!.attempts], ['delivered', 1]);
  const mine = receiver.received.filter((r) => r.body?.data?.id === inbound);
  assert.is(mine.length, 1);
  assert.is(mine[0]!.headers['x-switchboard-event-id'], pending!.event_id);
  assert.is((await call('DELETE', `/webhooks/subscriptions/${subscriptionId}`, undefined, subscriber)).status, 204);
  assert.is((await call('DELETE', `/webhooks/subscriptions/${subscriptionId}`, undefined, subscriber)).status, 404);
  // The next event after the delete is not written for the deleted subscription (the answer waits for the publish).
  assert.equal(await deliveriesOf(await receiveInbound(), subscriber), []);
});

test('a final status whose event a stop left unwritten is published by the sweep once, dated when it happened, and only to receivers that existed then', async () => {
  const db = gatewayDb(gw.gateway);
  const id = await submit('+15550000007', 'swept');
  await until(async () => typesTo('swept').includes('fax.delivered:200'), 15000, 40);
  const marked = async () => (await db.selectFrom('fax_jobs').select('event_pending').where('id', '=', id).executeTakeFirstOrThrow()).event_pending;
  await until(async () => (await marked()) === 0, 5000, 20);
  const sweep = gw.gateway.surfaces.fax.statusEvents.sweep;
  // What a crash right after the status commit leaves: the job marked, no delivery of its final event.
  await db.deleteFrom('fax_webhook_deliveries').where('subject_id', '=', id).where('event_type', '=', 'fax.delivered').execute();
  await db.updateTable('fax_jobs').set({ event_pending: 1 }).where('id', '=', id).execute();
  const before = requestsTo('swept').length;
  const late = await mint(['fax:read', 'webhooks:manage']);
  const made = await call('POST', '/webhooks/subscriptions', { url: `${receiver.url}?swept-late`, events: ['fax.delivered'] }, late);
  assert.is(made.status, 201, await made.clone().text());
  // Within the grace the row is left to the path that marked it.
  assert.is(await sweep.runOnce(), 0);
  assert.is(await sweep.runOnce(Date.now() + SWEEP_GRACE_MS + 1000), 1);
  await until(async () => requestsTo('swept').length === before + 1, 15000, 40);
  const [again] = requestsTo('swept').slice(before);
  assert.is(again!.body.type, 'fax.delivered');
  const row = await db.selectFrom('fax_jobs').select(['finished_at', 'event_pending']).where('id', '=', id).executeTakeFirstOrThrow();
  assert.is(again!.body.created_at, row.finished_at, 'dated when the job finished');
  assert.is(row.event_pending, 0);
  const ids = requestsTo('swept').filter((r) => r.body.type === 'fax.delivered').map((r) => r.headers['x-switchboard-event-id']);
  assert.is(new Set(ids).size, 1, 'the same event id as the delivery made before the crash');
  // Marked again (a second crash): the outbox holds the event, nothing is sent twice.
  await db.updateTable('fax_jobs').set({ event_pending: 1 }).where('id', '=', id).execute();
  assert.is(await sweep.runOnce(Date.now() + SWEEP_GRACE_MS + 1000), 1);
  assert.is(await sweep.runOnce(Date.now() + SWEEP_GRACE_MS + 1000), 0);
  await finishedDeliveries(id, 3);
  assert.is(requestsTo('swept').length, before + 1);
  assert.is(requestsTo('swept-late').filter((r) => r.body.data?.id === id).length, 0, 'a subscription made after the event does not get it');
});

test('an inbound fax whose inbound.received a stop left unwritten is published by the sweep once, to the subscriptions that existed then', async () => {
  const db = gatewayDb(gw.gateway);
  const owner = await mint(['webhooks:manage', 'inbound:list']);
  const made = await call('POST', '/webhooks/subscriptions', { url: `${receiver.url}?inbound-swept`, events: ['inbound.received'] }, owner);
  assert.is(made.status, 201, await made.clone().text());
  const inbound = await receiveInbound();
  await finishedDeliveries(inbound, 1, owner);
  assert.is((await db.selectFrom('inbound_faxes').select('event_pending').where('id', '=', inbound).executeTakeFirstOrThrow()).event_pending, 0, 'the publisher cleared the mark');
  // What a stop right after the fax was stored leaves: the fax marked, no delivery of its event.
  await db.deleteFrom('fax_webhook_deliveries').where('subject_id', '=', inbound).execute();
  await db.updateTable('inbound_faxes').set({ event_pending: 1 }).where('id', '=', inbound).execute();
  const before = requestsTo('inbound-swept').length;
  assert.is(await gw.gateway.surfaces.fax.statusEvents.sweep.runOnce(Date.now() + SWEEP_GRACE_MS + 1000), 1);
  const [again] = await finishedDeliveries(inbound, 1, owner);
  assert.is(again!.state, 'delivered');
  await until(() => requestsTo('inbound-swept').length === before + 1, 15000, 40);
  const ids = requestsTo('inbound-swept').map((r) => r.headers['x-switchboard-event-id']);
  assert.is(new Set(ids).size, 1, 'the event id it had before');
  assert.is((await db.selectFrom('inbound_faxes').select('event_pending').where('id', '=', inbound).executeTakeFirstOrThrow()).event_pending, 0);
  assert.is(await gw.gateway.surfaces.fax.statusEvents.sweep.runOnce(Date.now() + SWEEP_GRACE_MS + 1000), 0);
});

test('refusals: plain http off loopback, a private address, events the key may not read', async () => {
  const form = new FormData();
  form.set('to', '+15550000001');
  form.set('callback_url', 'http://example.com/hook');
  form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  const plain = await fetch(`${gw.url}/fax`, { method: 'POST', headers: { 'x-api-key': KEY }, body: form });
  assert.is(plain.status, 400);
  assert.is(((await plain.json()) as { code: string }).code, 'webhook_url_refused');
  const priv = await call('POST', '/webhooks/subscriptions', { url: 'https://10.1.2.3/hook', events: ['fax.failed'] });
  assert.is(priv.status, 400);
  assert.match(((await priv.json()) as { detail: string }).detail, /^url: .*private/);
  const faxOnly = await mint(['webhooks:manage', 'fax:send']);
  const denied = await call('POST', '/webhooks/subscriptions', { url: `${receiver.url}?x`, events: ['fax.failed', 'inbound.received'] }, faxOnly);
  assert.is(denied.status, 403);
  assert.is(((await denied.json()) as { code: string }).code, 'webhook_event_not_permitted');
});

test.run();
