import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startProviderCFake, type ProviderCFake } from '../../../../fakes/providerc-fake.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { dispatchSettled } from '../../../../support/fax-dispatch.js';

// Provider C speaks `busy` and `no-answer` on the wire: the loopback fake scripts a busy line, then success.
let gw: TestGateway;
let fake: ProviderCFake;

const jobInUrl = (url: string | undefined) => (url ? /\/fax\/([^/]+)\/pdf/.exec(url)?.[1] : undefined);
const sendsOf = (jobId: string) => fake.sends.filter((s) => jobInUrl(s.fields.MediaUrl?.[0]) === jobId && s.answer === 201);
const job = async (id: string) => json(await fetch(`${gw.url}/fax/${id}`));
const waitFor = (id: string, pred: (j: any) => boolean, ms = 8000) =>
  until(async () => {
    const j = await job(id);
    return pred(j) ? j : undefined;
  }, ms, 30);
const submit = async (fields: Record<string, string> = {}) => {
  const form = new FormData();
  form.set('to', '+15550107777');
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([new Uint8Array(await makePdf(1))]), 'doc.pdf');
  return fetch(`${gw.url}/fax`, { method: 'POST', body: form });
};
const submitted = async (fields: Record<string, string> = {}) => {
  const res = await submit(fields);
  assert.is(res.status, 202, await res.clone().text());
  return json(res);
};
/** The provider's id of the job's nth send (1-based), once it was made. */
const sidOfSend = async (jobId: string, n: number) => {
  await until(() => sendsOf(jobId).length >= n, 8000, 20);
  return until(() => [...fake.faxes.values()].filter((f) => jobInUrl(f.media_url) === jobId)[n - 1]?.sid, 8000, 20);
};
const callback = async (jobId: string, sid: string) => {
  const res = await fake.postCallback(jobId, sid);
  assert.is(res.status, 200, await res.clone().text());
};

test.before(async () => {
  fake = await startProviderCFake({ projectId: 'proj-r', apiToken: 'retry-token-value' });
  gw = await startGateway({
    FAX_BACKEND: 'providerc',
    PROVIDERC_BASE_URL: fake.baseUrl,
    PROVIDERC_PROJECT_ID: 'proj-r',
    PROVIDERC_API_TOKEN: 'retry-token-value',
    PROVIDERC_FAX_FROM: '+15550001111',
    PROVIDERC_TIMEOUT_MS: '700',
    FAX_RETRY_MAX_ATTEMPTS: '3',
    FAX_RETRY_DELAY_SECONDS: '0',
    FAX_DISPATCH_POLL_MS: '30',
    FAX_UNCERTAIN_RECHECK_MS: '150',
    FAX_STATUS_POLL_MS: '200',
    FAX_RECONCILE_INTERVAL_MS: '100',
    LOG_LEVEL: 'warn',
  });
});
test.after(async () => {
  await gw.close();
  await fake.close();
});

test('a busy line is redialled; the second attempt succeeds; both attempts are on the job', async () => {
  const u = await submitted();
  const first = await sidOfSend(u.id, 1);
  fake.setStatus(first, 'busy', 0);
  await callback(u.id, first);
  const second = await sidOfSend(u.id, 2);
  assert.is.not(second, first);
  const waiting = await waitFor(u.id, (j) => j.provider_sid === second);
  assert.is(waiting.status, 'in_progress', 'a redialled job stays in progress');
  // The busy callback again, late: acknowledged, and it neither fails nor redials the job.
  await callback(u.id, first);
  fake.setStatus(second, 'delivered', 1);
  await callback(u.id, second);
  const done = await waitFor(u.id, (j) => j.status === 'SUCCESS');
  assert.is(sendsOf(u.id).length, 2, 'two sends: the busy one and the redial');
  assert.is(done.attempts.length, 2);
  assert.equal(
    done.attempts.map((a: any) => [a.attempt, a.outcome, a.line_failure, a.provider_sid]),
    [
      [1, 'FAILED', 'busy', first],
      [2, 'SUCCESS', undefined, second],
    ],
  );
  for (const a of done.attempts) assert.ok(a.started_at <= a.ended_at, 'each attempt has its times');
  const admin = await json(await fetch(`${gw.url}/admin/fax-jobs/${u.id}`));
  assert.is(admin.attempts, 2);
  assert.equal(admin.attempt_history, done.attempts, 'the admin detail shows the same attempts');
});

test('a line that never answers fails after the policy\'s attempts (found by polling, no callback)', async () => {
  const u = await submitted({ retry_max_attempts: '2' });
  const first = await sidOfSend(u.id, 1);
  fake.setStatus(first, 'no-answer', 0);
  const second = await sidOfSend(u.id, 2);
  fake.setStatus(second, 'no-answer', 0);
  const failed = await waitFor(u.id, (j) => j.status === 'FAILED');
  assert.is(sendsOf(u.id).length, 2, 'the per-job retry_max_attempts (2) wins over FAX_RETRY_MAX_ATTEMPTS (3)');
  assert.equal(
    failed.attempts.map((a: any) => [a.outcome, a.line_failure]),
    [
      ['FAILED', 'no_answer'],
      ['FAILED', 'no_answer'],
    ],
  );
});

test('retry_max_attempts=1 makes a busy line final at once', async () => {
  const u = await submitted({ retry_max_attempts: '1' });
  const first = await sidOfSend(u.id, 1);
  fake.setStatus(first, 'busy', 0);
  await callback(u.id, first);
  const failed = await waitFor(u.id, (j) => j.status === 'FAILED');
  await dispatchSettled(gw.gateway.surfaces.fax.store.db, [u.id]);
  assert.is(sendsOf(u.id).length, 1);
  assert.is(failed.attempts[0].line_failure, 'busy');
});

test('a failure that is not the line (a failed fax) is never redialled', async () => {
  const u = await submitted();
  const first = await sidOfSend(u.id, 1);
  fake.setStatus(first, 'failed', 1, { code: '15004', message: 'Fax transmission failed' });
  await callback(u.id, first);
  const failed = await waitFor(u.id, (j) => j.status === 'FAILED');
  await dispatchSettled(gw.gateway.surfaces.fax.store.db, [u.id]);
  assert.is(sendsOf(u.id).length, 1);
  assert.equal([failed.attempts[0].outcome, failed.attempts[0].line_failure], ['FAILED', undefined]);
});

test('an uncertain send is looked up, not resent, and stays one attempt', async () => {
  fake.hangAfterAccept(1);
  const u = await submitted();
  const found = await waitFor(u.id, (j) => j.status === 'in_progress' && !!j.provider_sid, 10_000);
  assert.is(fake.sends.filter((s) => jobInUrl(s.fields.MediaUrl?.[0]) === u.id).length, 1, 'one send reached the provider');
  assert.is(found.attempts.length, 1);
  assert.is(found.attempts[0].provider_sid, found.provider_sid);
  fake.setStatus(found.provider_sid, 'delivered', 1);
  const done = await waitFor(u.id, (j) => j.status === 'SUCCESS');
  assert.equal(done.attempts.map((a: any) => a.outcome), ['SUCCESS']);
});

test('retry fields are validated with caps', async () => {
  for (const [field, value] of [
    ['retry_max_attempts', '0'],
    ['retry_max_attempts', '11'],
    ['retry_max_attempts', 'three'],
    ['retry_delay_seconds', '86401'],
    ['retry_delay_seconds', '-5'],
  ] as const) {
    const res = await submit({ [field]: value });
    assert.is(res.status, 400, `${field}=${value}`);
    const body = await json(res);
    assert.is(body.code, 'validation_error');
    assert.match(body.detail, field);
  }
});

test.run();
