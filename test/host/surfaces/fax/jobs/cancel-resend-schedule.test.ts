import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startAlertReceiver, type AlertReceiver } from '../../../../fakes/alert-receiver.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/** Scheduled sends (send_at), cancel before and during a send, and resend, through fax-sim on a real gateway. */
let gw: TestGateway;
let receiver: AlertReceiver;
let pdf: Buffer;

type Job = { id: string; status: string; error?: string; send_at?: string; resend_of?: string; resent_as?: string[]; pages?: number; attempts?: Array<{ started_at: string }> };

async function submit(fields: Record<string, string>): Promise<Response> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  return fetch(`${gw.url}/fax`, { method: 'POST', body: form });
}
const jobOf = async (id: string) => (await json(await fetch(`${gw.url}/fax/${id}`))) as Job;
const finished = (id: string) => until(async () => {
  const job = await jobOf(id);
  return (job.status === 'SUCCESS' || job.status === 'FAILED') && job;
}, 20000, 50);
const post = (path: string) => fetch(`${gw.url}${path}`, { method: 'POST' });

test.before(async () => {
  pdf = await makePdf(2);
  receiver = await startAlertReceiver({ tls: false });
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '2000', FAX_DISPATCH_POLL_MS: '50', ALERT_ALLOW_HTTP_LOOPBACK: 'true', WEBHOOK_SIGNING_SECRET: 'sched-secret', WEBHOOK_DELIVERY_POLL_MS: '20', FAX_SCHEDULE_HORIZON_DAYS: '2', AUDIT_LOG_ENABLED: 'true' });
  await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
});
test.after(async () => {
  await gw?.close();
  await receiver?.close();
});

test('a scheduled job waits in queued with its time and is sent once that time has come', async () => {
  const sendAt = new Date(Date.now() + 4000).toISOString();
  const res = await submit({ to: '+15550000001', send_at: sendAt });
  assert.is(res.status, 202, await res.clone().text());
  const job = (await json(res)) as Job;
  assert.equal([job.status, job.send_at], ['queued', sendAt]);
  // Whenever this look comes (a loaded machine may be past the time already), no attempt began before it.
  const early = await jobOf(job.id);
  if (Date.now() < Date.parse(sendAt) - 500) assert.equal([early.status, early.attempts], ['queued', []]);
  for (const a of early.attempts ?? []) assert.ok(Date.parse(a.started_at) >= Date.parse(sendAt), `${a.started_at} before ${sendAt}`);
  const done = await finished(job.id);
  assert.is(done.status, 'SUCCESS');
  assert.is(done.attempts!.length, 1);
  assert.ok(Date.parse(done.attempts![0]!.started_at) >= Date.parse(sendAt), `${done.attempts![0]!.started_at} before ${sendAt}`);
});

test('send_at in the past, beyond the horizon or not a time is refused 400 naming the rule', async () => {
  for (const [value, detail] of [
    [new Date(Date.now() - 60_000).toISOString(), /must be in the future/],
    [new Date(Date.now() + 3 * 86_400_000).toISOString(), /FAX_SCHEDULE_HORIZON_DAYS \(2\)/],
    ['tomorrow', /ISO 8601/],
  ] as const) {
    const res = await submit({ to: '+15550000001', send_at: value });
    assert.is(res.status, 400);
    const body = (await res.json()) as { code: string; detail: string };
    assert.is(body.code, 'send_at_out_of_range');
    assert.match(body.detail, detail);
  }
});

test('cancel before the time prevents the send: FAILED with error canceled, fax.canceled fired, a second cancel 409', async () => {
  const res = await submit({ to: '+15550000001', send_at: new Date(Date.now() + 60_000).toISOString(), callback_url: `${receiver.url}?cancel` });
  const job = (await json(res)) as Job;
  const canceled = await post(`/fax/${job.id}/cancel`);
  assert.is(canceled.status, 200);
  const body = (await canceled.json()) as Job;
  assert.equal([body.status, body.error], ['FAILED', 'canceled']);
  await until(() => receiver.received.filter((r) => r.path?.endsWith('?cancel')).length === 2, 10000);
  assert.equal(receiver.received.filter((r) => r.path?.endsWith('?cancel')).map((r) => r.body.type), ['fax.queued', 'fax.canceled']);
  const again = await post(`/fax/${job.id}/cancel`);
  assert.is(again.status, 409);
  assert.is(((await again.json()) as { code: string }).code, 'fax_already_final');
  assert.equal((await jobOf(job.id)).attempts, []);
  assert.is((await post('/fax/no-such-job/cancel')).status, 404);
});

test('cancel during a send asks the provider, which ends the job FAILED', async () => {
  const job = (await json(await submit({ to: '+15550000001' }))) as Job;
  await until(async () => (await jobOf(job.id)).status === 'in_progress', 10000, 20);
  const res = await post(`/fax/${job.id}/cancel`);
  assert.is(res.status, 202, await res.clone().text());
  const done = await finished(job.id);
  assert.is(done.status, 'FAILED');
});

test('resend makes a new job from the stored document, linked both ways', async () => {
  const first = (await json(await submit({ to: '+15550000001' }))) as Job;
  await finished(first.id);
  const res = await post(`/fax/${first.id}/resend`);
  assert.is(res.status, 202, await res.clone().text());
  const second = (await res.json()) as Job;
  assert.is(second.resend_of, first.id);
  assert.is(second.pages, 2);
  assert.equal((await jobOf(first.id)).resent_as, [second.id]);
  const done = await finished(second.id);
  assert.equal([done.status, done.pages], ['SUCCESS', 2]);
});

test.run();
