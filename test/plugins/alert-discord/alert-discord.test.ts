import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';
import { alertNotice, startManifestAlertSink } from '../../support/manifest-alert-sink.js';

let receiver: AlertReceiver;
let started: Awaited<ReturnType<typeof startManifestAlertSink>>;

test.before(async () => {
  receiver = await startAlertReceiver({ tls: false });
  started = await startManifestAlertSink('alert-discord', { url: receiver.url });
});
test.after(async () => {
  await started?.plugin.stop();
  await receiver?.close();
});

test('a notice reaches the Discord webhook as {content} with the severity in bold', async () => {
  const notice = alertNotice({
    id: 'provider_down:sip',
    event_id: 'provider_down:sip:resolved:1',
    type: 'provider_down',
    severity: 'critical',
    status: 'resolved',
    title: 'Fax provider sip is active again',
    starts_at: '2025-01-02T03:04:05.000Z',
    ends_at: '2025-01-02T03:10:00.000Z',
  });
  assert.equal(await started.sink.deliver(notice), { ok: true, status: 200 });
  assert.is(receiver.received.length, 1);
  assert.equal(receiver.received[0]!.body, { content: '**critical** resolved: Fax provider sip is active again (provider_down, since 2025-01-02T03:04:05.000Z)' });
  assert.is(receiver.received[0]!.headers['idempotency-key'], notice.event_id);
});

test('Discord rate limiting (429) is transient: the outbox retries it', async () => {
  receiver.next(429);
  const outcome = await started.sink.deliver(alertNotice({ id: 'a', type: 't', title: 'x' }));
  assert.equal(outcome, { ok: false, permanent: false, status: 429, detail: 'receiver answered HTTP 429' });
});

test.run();
