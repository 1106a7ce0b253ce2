import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';

/**
 * FAX_BACKEND=fax-sim on a real gateway with no other setting: outcomes by number, results
 * through the gateway's own callback route (polling is pushed out of reach), the lost submit
 * found by the dispatcher's lookup, and an inbound fax injected with the per-install secret.
 */
let gw: TestGateway;

const jobOf = async (id: string) => json(await fetch(`${gw.url}/fax/${id}`));

async function submit(to: string, pages = 2): Promise<string> {
  const res = await postFax(gw.url, to, await makePdf(pages));
  assert.is(res.status, 202, await res.clone().text());
  return (await json(res)).id as string;
}

async function finished(id: string): Promise<{ status: string; error?: string; pages?: number; provider_sid?: string }> {
  return until(async () => {
    const job = await jobOf(id);
    return job.status === 'SUCCESS' || job.status === 'FAILED' ? job : undefined;
  }, 15000, 40);
}

/** How the job's status changes were learned (callback, lookup, poll, ...), from the audit trail. */
async function viaOf(id: string): Promise<string[]> {
  await gw.gateway.audit.flush();
  const rows = await gatewayDb(gw.gateway).selectFrom('audit_events').select('record').where('event', 'in', ['job_updated', 'job_failed']).execute();
  return rows
    .map((r) => JSON.parse(r.record) as { job_id?: string; via?: string; details?: { job_id?: string; via?: string } })
    .map((r) => r.details ?? r)
    .filter((r) => r.job_id === id)
    .map((r) => r.via ?? '?');
}

test.before(async () => {
  gw = await startGateway({
    FAX_BACKEND: 'fax-sim',
    FAX_SIM_DELAY_MS: '100',
    FAX_DISPATCH_POLL_MS: '50',
    FAX_UNCERTAIN_RECHECK_MS: '100',
    // Results must come by callback or lookup: polling is out of reach.
    FAX_STATUS_POLL_MS: '3600000',
    FAX_RECONCILE_INTERVAL_MS: '3600000',
    AUDIT_LOG_ENABLED: 'true',
    INBOUND_ENABLED: 'true',
  });
  await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
});
test.after(async () => {
  await gw?.close();
});

test('the simulator is active with no settings and serves both directions', async () => {
  const plugin = await json(await fetch(`${gw.url}/plugins/fax-sim`));
  assert.is(plugin.state, 'active');
  assert.equal(plugin.directions, ['inbound', 'outbound']);
});

test('a number ending 0001 ends SUCCESS with the document pages, told by status callbacks', async () => {
  const id = await submit('+15550000001', 3);
  const job = await finished(id);
  assert.is(job.status, 'SUCCESS');
  assert.is(job.pages, 3);
  assert.ok(job.provider_sid?.startsWith('sim-'));
  const via = await viaOf(id);
  assert.ok(via.includes('callback'), via.join(','));
  assert.not.ok(via.includes('poll'));
});

test('a number ending 0002 is busy on the first attempt and delivered on the redial the job asks for', async () => {
  const form = new FormData();
  form.set('to', '+15550000002');
  form.set('file', new Blob([new Uint8Array(await makePdf(1))]), 'letter.pdf');
  form.set('retry_max_attempts', '2');
  form.set('retry_delay_seconds', '0');
  const res = await fetch(`${gw.url}/fax`, { method: 'POST', body: form });
  assert.is(res.status, 202, await res.clone().text());
  const id = (await json(res)).id as string;
  const job = await finished(id);
  assert.is(job.status, 'SUCCESS', job.error);
  const attempts = (await jobOf(id)).attempts as Array<{ line_failure?: string | null; outcome?: string }>;
  assert.is(attempts.length, 2, JSON.stringify(attempts));
  assert.is(attempts[0]!.line_failure, 'busy', JSON.stringify(attempts[0]));
});

test('a number ending 0003 ends FAILED with the provider error, logged once with the job id unmasked', async () => {
  const id = await submit('+15550000003');
  const job = await finished(id);
  assert.is(job.status, 'FAILED');
  assert.ok(job.error?.includes('simulated provider error'), job.error);
  const failedLines = gw.logs.map((l) => JSON.parse(l) as { msg: string; job_id?: string; level: number }).filter((l) => l.msg === 'fax job FAILED' && l.job_id === id);
  assert.is(failedLines.length, 1, JSON.stringify(failedLines));
  assert.is(failedLines[0]!.level, 40);
});

test('a number ending 0004 (submit answer lost) is looked up, never resent, and ends SUCCESS', async () => {
  const id = await submit('+15550000004');
  const job = await finished(id);
  assert.is(job.status, 'SUCCESS');
  assert.ok(job.provider_sid?.startsWith('sim-'));
  assert.ok((await viaOf(id)).includes('lookup'));
  const row = await gatewayDb(gw.gateway).selectFrom('fax_jobs').select('attempts').where('id', '=', id).executeTakeFirstOrThrow();
  assert.is(Number(row.attempts), 1);
});

/** A job as a dead instance leaves it: marked `sending` `sinceMs` ago, its lease run out. */
async function leftSending(to: string, sinceMs: number): Promise<string> {
  const form = new FormData();
  form.set('to', to);
  form.set('file', new Blob([new Uint8Array(await makePdf(1))]), 'letter.pdf');
  // Scheduled a day ahead, so this gateway's dispatcher leaves it alone until it is rewritten.
  form.set('send_at', new Date(Date.now() + 86_400_000).toISOString());
  const res = await fetch(`${gw.url}/fax`, { method: 'POST', body: form });
  assert.is(res.status, 202, await res.clone().text());
  const id = (await json(res)).id as string;
  const now = Date.now();
  await gatewayDb(gw.gateway)
    .updateTable('fax_jobs')
    .set({ dispatch_state: 'sending', attempts: 1, sent_at: now - sinceMs, next_attempt_at: now, lease_owner: 'dispatcher-dead:1:00000000', lease_until: now - 1 })
    .where('id', '=', id)
    .execute();
  await gatewayDb(gw.gateway).insertInto('fax_job_attempts').values({ job_id: id, attempt: 1, started_at: new Date(now - sinceMs).toISOString(), ended_at: null, outcome: null, line_failure: null, error: null, provider_sid: null }).execute();
  return id;
}

/** fax-sim's record of a job in its store (storage-local under DATA_DIR/storage). */
const simFile = (id: string) => path.join(gw.dataDir, 'storage', 'plugins', 'fax-sim', 'faxes', `${id}.json`);
const simSends = (id: string) => (JSON.parse(readFileSync(simFile(id), 'utf8')) as { faxes: Array<{ sid: string }> }).faxes;

test('a send a dead instance left in `sending` that fax-sim has (another instance stored it) is resolved by the lookup, not resent', async () => {
  const id = await leftSending('+15550000001', 200);
  mkdirSync(path.dirname(simFile(id)), { recursive: true });
  writeFileSync(simFile(id), JSON.stringify({ faxes: [{ sid: 'sim-of-the-dead', jobId: id, to: '+15550000001', scenario: 'delivered', pages: 1, attempt: 1, acceptedAt: Date.now() - 200, delayMs: 100 }] }));
  const job = await finished(id);
  assert.is(job.status, 'SUCCESS');
  assert.is(job.provider_sid, 'sim-of-the-dead');
  assert.ok((await viaOf(id)).includes('lookup'));
  assert.equal(simSends(id).map((f) => f.sid), ['sim-of-the-dead'], 'not sent again');
});

test('a send a dead instance left in `sending` that fax-sim never got is sent again once its lookup is certain (5 s after the send began), once', async () => {
  const left = Date.now();
  const id = await leftSending('+15550000001', 2000);
  const job = await finished(id);
  assert.is(job.status, 'SUCCESS', job.error);
  assert.ok(Date.now() - left >= 2900, `not resent before the lookup is certain (${Date.now() - left} ms)`);
  assert.is(simSends(id).length, 1, 'sent once');
  const attempts = (await jobOf(id)).attempts as Array<{ outcome?: string }>;
  assert.equal(attempts.map((a) => a.outcome), ['not_accepted', 'SUCCESS'], JSON.stringify(attempts));
});

test('an inbound fax injected with the per-install secret is stored; an unsigned one is refused', async () => {
  const secret = readFileSync(path.join(gw.dataDir, 'fax-sim', 'secret'), 'utf8').trim();
  const body = JSON.stringify({ id: 'sim-inbound-1', from: '+15550000009', to: '+15550000001', pdf_base64: (await makePdf(2)).toString('base64') });
  const post = (headers: Record<string, string>) => fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  assert.is((await post({})).status, 401);
  const res = await post({ 'x-fax-sim-signature': createHmac('sha256', secret).update(body).digest('hex') });
  assert.is(res.status, 200, await res.clone().text());
  const stored = await json(await fetch(`${gw.url}/inbound/${(await json(res)).id}`));
  assert.is(stored.provider, 'fax-sim');
  assert.is(stored.pages, 2);
});

test.run();
