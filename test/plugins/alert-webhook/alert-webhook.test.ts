import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertNotice } from '../../../core/sdk/contracts/alert-sink.js';
import { alertSinkConformance } from '../../../core/testing/index.js';
import { createAlertSinkPlugin } from '../../../core/declarative/alert-sink.js';
import { resolveEgress } from '../../../core/kernel/egress.js';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';
import { alertNotice, builtinAlertManifest, startManifestAlertSink } from '../../support/manifest-alert-sink.js';

let receiver: AlertReceiver;
let started: Awaited<ReturnType<typeof startManifestAlertSink>>;

const ALERT = alertNotice({
  id: 'provider_down:providera',
  event_id: 'provider_down:providera:firing:1',
  type: 'provider_down',
  category: 'fax',
  severity: 'critical',
  title: 'Fax provider providera is not active',
  starts_at: '2025-01-02T03:04:05.000Z',
  sent_at: '2025-01-02T03:04:06.000Z',
  labels: { provider: 'providera' },
  context: { state: 'failed', attempts: 3 },
});

test.before(async () => {
  receiver = await startAlertReceiver({ tls: false });
  started = await startManifestAlertSink('alert-webhook', { url: receiver.url });
});
test.after(async () => {
  await started?.plugin.stop();
  await receiver?.close();
});
test.before.each(() => {
  receiver.received.length = 0;
});

test('delivers the generic JSON notice, labels and context as JSON objects, with the idempotency key', async () => {
  const outcome = await started.sink.deliver(ALERT);
  assert.equal(outcome, { ok: true, status: 200 });
  assert.is(receiver.received.length, 1);
  const [got] = receiver.received;
  assert.is(got!.headers['content-type'], 'application/json');
  assert.is(got!.headers['idempotency-key'], ALERT.event_id);
  assert.is(got!.headers['x-switchboard-alert-id'], ALERT.id);
  assert.is(got!.headers['x-switchboard-event-id'], ALERT.event_id);
  assert.equal(got!.body, {
    id: ALERT.id,
    event_id: ALERT.event_id,
    type: 'provider_down',
    category: 'fax',
    severity: 'critical',
    status: 'firing',
    title: ALERT.title,
    labels: { provider: 'providera' },
    starts_at: ALERT.starts_at,
    ends_at: null,
    sent_at: ALERT.sent_at,
    context: { state: 'failed', attempts: 3 },
  });
});

test('a notice handed over by the host is sent exactly as it is stored', async () => {
  const notice: AlertNotice = {
    id: 'test:switchboard',
    event_id: 'test:switchboard/test:1',
    type: 'test',
    category: 'test',
    severity: 'info',
    status: 'resolved',
    title: 'quotes " and \\ and a\nnewline, & = / {{ not a placeholder }}, ünïcødé ✓',
    labels: { z: '1', a: '2' },
    starts_at: '2025-01-02T03:04:05.000Z',
    ends_at: '2025-01-02T04:04:05.000Z',
    sent_at: '2025-01-02T04:04:06.000Z',
    context: { nested: { list: [1, null, 'x'] } },
  };
  const stored = JSON.stringify(notice);
  assert.equal(await started.sink.deliver(JSON.parse(stored)), { ok: true, status: 200 });
  assert.is(receiver.received.length, 1);
  assert.is(JSON.stringify(receiver.received[0]!.body), stored);
});

test('receiver answers map to outcomes: 2xx delivered, 4xx permanent, 408, 429 and 5xx transient', async () => {
  receiver.next(204, 404, 408, 429, 503);
  assert.equal(await started.sink.deliver(ALERT), { ok: true, status: 204 });
  assert.equal(await started.sink.deliver(ALERT), { ok: false, permanent: true, status: 404, detail: 'receiver answered HTTP 404' });
  for (const status of [408, 429, 503]) {
    assert.equal(await started.sink.deliver(ALERT), { ok: false, permanent: false, status, detail: `receiver answered HTTP ${status}` }, String(status));
  }
  assert.is(receiver.received.length, 5);
});

test('a receiver that drops the connection is a transient failure', async () => {
  receiver.next('crash');
  const outcome = await started.sink.deliver(ALERT);
  assert.is(outcome.ok, false);
  assert.not.ok(outcome.permanent);
});

test('the health view masks the receiver URL, which authorises posting', async () => {
  const health = await started.plugin.instance.health!();
  assert.equal(health, { ok: true, info: { receiver: `${new URL(receiver.url).protocol}//${new URL(receiver.url).host}/***` } });
  assert.not.match(JSON.stringify(health), /hooks\/alerts/);
});

test('without a receiver URL the plugin does not start', async () => {
  let failed: unknown;
  try {
    const other = await startManifestAlertSink('alert-webhook', {});
    await other.plugin.stop();
  } catch (err) {
    failed = err;
  }
  assert.ok(failed, 'a missing url refuses to start');
  assert.match(String(failed), /url/);
});

// The kit's suite of the kind, as a third-party author runs it: the real runtime, this file's receiver
// (read when each case starts its generation, once test.before has started it).
const manifest = builtinAlertManifest('alert-webhook');
const suite = alertSinkConformance({
  plugin: createAlertSinkPlugin(manifest, { allowHttpLoopback: () => true }),
  pluginId: 'alert-webhook',
  get settings() {
    return { url: receiver.url };
  },
  get egress() {
    return resolveEgress(manifest.egress ?? [], { url: receiver.url });
  },
});
for (const c of suite) test(c.name, () => c.run());

test('the conformance cases reached the receiver with the stored notice', async () => {
  await suite[0]!.run();
  assert.is(receiver.received.length, 1);
  assert.is(receiver.received[0]!.body.type, 'conformance');
});

test.run();
