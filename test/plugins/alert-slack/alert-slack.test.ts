import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';
import { alertNotice, startManifestAlertSink } from '../../support/manifest-alert-sink.js';

let receiver: AlertReceiver;
let started: Awaited<ReturnType<typeof startManifestAlertSink>>;

test.before(async () => {
  receiver = await startAlertReceiver({ tls: false });
  started = await startManifestAlertSink('alert-slack', { url: receiver.url });
});
test.after(async () => {
  await started?.plugin.stop();
  await receiver?.close();
});

test('a notice reaches the incoming webhook as {text} with severity, status, title, type and start', async () => {
  const notice = alertNotice({
    id: 'judge_error_rate:hosted',
    event_id: 'judge_error_rate:hosted:firing:1',
    type: 'judge_error_rate',
    severity: 'warning',
    status: 'firing',
    title: 'Hosted judge errors above 20%',
    starts_at: '2025-01-02T03:04:05.000Z',
  });
  assert.equal(await started.sink.deliver(notice), { ok: true, status: 200 });
  assert.is(receiver.received.length, 1);
  assert.equal(receiver.received[0]!.body, { text: '[warning] firing: Hosted judge errors above 20% (judge_error_rate, 2025-01-02T03:04:05.000Z)' });
  assert.is(receiver.received[0]!.headers['idempotency-key'], notice.event_id);
});

test('a webhook Slack refuses (4xx) is a permanent failure', async () => {
  receiver.next(403);
  const outcome = await started.sink.deliver(alertNotice({ id: 'a', type: 't', status: 'resolved', title: 'x' }));
  assert.equal(outcome, { ok: false, permanent: true, status: 403, detail: 'receiver answered HTTP 403' });
});

test.run();
