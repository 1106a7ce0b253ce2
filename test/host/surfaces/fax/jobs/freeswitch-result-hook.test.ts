import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EslFake } from '../../../../fakes/esl-fake.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/**
 * FreeSWITCH's result hook, exactly as Faxbot's dialplan sends it (api_hangup_hook running
 * `curl -s -X POST -H 'Content-Type: application/json' -H 'X-Internal-Secret: ...' -d '{...}'`),
 * finalizes a PBX-B job; the ESL event path stays, and a result arriving both ways counts once.
 */
const SECRET = 'fs-hook-secret-4be1';
const ESL_PASSWORD = 'esl-pass-81c2';
let esl: EslFake;
let gw: TestGateway;

/** The body the dialplan's curl builds: `${fax_success}` as fax_status, the pages unquoted. */
function dialplanBody(jobId: string, faxSuccess: '1' | '0', pages: number, text = 'OK'): string {
  return `{"job_id":"${jobId}","fax_status":"${faxSuccess}","fax_result_text":"${text}","fax_document_transferred_pages":${pages},"uuid":"6f1c2d9a-1b7e-4c55-9d1e-2a9f0c3b8e71"}`;
}
/** `secret` null sends no X-Internal-Secret header at all. */
const hook = (body: string, secret: string | null = SECRET, path = '/_internal/freeswitch/outbound_result') =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(secret === null ? {} : { 'X-Internal-Secret': secret }) }, body });

async function dialledJob(): Promise<string> {
  const res = await postFax(gw.url, '+15550107777', await makePdf(1));
  assert.is(res.status, 202, await res.clone().text());
  const { id } = await json(res);
  await until(async () => (await json(await fetch(`${gw.url}/fax/${id}`))).provider_sid, 15000, 40);
  return id as string;
}
const jobOf = async (id: string) => json(await fetch(`${gw.url}/fax/${id}`));
async function finalAudits(id: string): Promise<string[]> {
  await gw.gateway.audit.flush();
  const rows = await gw.gateway.database.db.selectFrom('audit_events').select(['event', 'record']).where('event', 'in', ['job_updated', 'job_failed']).execute();
  return rows
    .map((r) => ({ event: r.event, record: JSON.parse(r.record) as { job_id?: string; status?: string; details?: { job_id?: string; status?: string } } }))
    .map(({ event, record }) => ({ event, ...(record.details ?? record) }))
    .filter((r) => r.job_id === id && (r.status === 'SUCCESS' || r.status === 'FAILED'))
    .map((r) => `${r.event}:${r.status}`);
}

test.before(async () => {
  esl = await EslFake.start({ password: ESL_PASSWORD });
  gw = await startGateway({
    FAX_BACKEND: 'pbxb',
    FAX_DISPATCH_POLL_MS: '50',
    AUDIT_LOG_ENABLED: 'true',
    PBXB_ESL_PORT: String(esl.port),
    PBXB_ESL_PASSWORD: ESL_PASSWORD,
    PBXB_GATEWAY: 'carrier',
    PBX_INBOUND_SECRET: SECRET,
  });
  await until(() => gw.gateway.kernel.isActive('fax', 'pbxb'), 15000);
});
test.after(async () => {
  await gw?.close();
  await esl?.close();
});

test('the hook alone finalizes a PBX-B job (success, then a failure with its reason)', async () => {
  esl.script({ kind: 'silent' }, { kind: 'silent' });
  const ok = await dialledJob();
  assert.is((await jobOf(ok)).status, 'in_progress');
  const res = await hook(dialplanBody(ok, '1', 1));
  assert.is(res.status, 200, await res.clone().text());
  assert.equal(await json(res), { ok: true, status: 'SUCCESS' });
  const done = await jobOf(ok);
  assert.equal([done.status, done.pages], ['SUCCESS', 1]);
  const bad = await dialledJob();
  assert.is((await hook(dialplanBody(bad, '0', 0, 'The call dropped prematurely'), SECRET, '/webhooks/pbxb/callback')).status, 200);
  const failed = await jobOf(bad);
  assert.is(failed.status, 'FAILED');
  assert.match(failed.error, /The call dropped prematurely/);
});

test('the hook needs X-Internal-Secret (401 wrong or missing) and changes nothing without it', async () => {
  esl.script({ kind: 'silent' });
  const id = await dialledJob();
  for (const path of ['/_internal/freeswitch/outbound_result', '/webhooks/pbxb/callback']) {
    for (const secret of ['wrong', null]) {
      const res = await hook(dialplanBody(id, '1', 1), secret, path);
      assert.is(res.status, 401, `${path} ${secret}`);
      assert.is((await json(res)).detail, 'invalid or missing X-Internal-Secret');
    }
  }
  assert.is((await jobOf(id)).status, 'in_progress');
  assert.is((await hook(dialplanBody('no-such-job', '1', 1))).status, 404);
  assert.is((await hook('{"job_id":"x","fax_status":"1","fax_document_transferred_pages":}')).status, 400);
});

test('a result by ESL and then by the hook counts once', async () => {
  esl.script({ kind: 'fax' });
  const id = await dialledJob();
  await until(async () => (await jobOf(id)).status === 'SUCCESS', 15000, 40);
  const res = await hook(dialplanBody(id, '1', 1));
  assert.is(res.status, 200);
  assert.is((await json(res)).status, 'SUCCESS');
  assert.equal(await finalAudits(id), ['job_updated:SUCCESS']);
});

test('a result by the hook and then by ESL counts once, and a late failure cannot undo it', async () => {
  esl.script({ kind: 'fax', hold: true });
  const id = await dialledJob();
  assert.is((await hook(dialplanBody(id, '1', 1))).status, 200);
  esl.releaseHeld();
  await until(() => gw.logs.some((l) => l.includes('fax finished') && l.includes(id)), 15000, 40).catch((err) => {
    console.log(gw.logs.filter((l) => l.includes('finished') || l.includes('pbxb')).slice(-10).join('\n'));
    throw err;
  });
  // FreeSWITCH's own hangup hook can report after the channel is gone: a late "0" changes nothing.
  assert.is((await json(await hook(dialplanBody(id, '0', 0, 'late')))).status, 'SUCCESS');
  assert.equal(await finalAudits(id), ['job_updated:SUCCESS']);
  assert.is((await jobOf(id)).status, 'SUCCESS');
});

test.run();
