import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server } from '../../../../support/s3-server.js';

/** DELETE /fax/{id}/document and DELETE /inbound/{id} on local storage and on S3 (s3rver): media gone, tombstone kept, audited, 410 after. */
const SIM_SECRET = 'deletion-sim-secret-2c4e';

async function exercise(gw: TestGateway): Promise<void> {
  const pdf = await makePdf(1);
  const stored = (prefix: string) => gw.gateway.kernel.withProvider('storage', gw.gateway.platform.config.get('STORAGE_BACKEND') as string, (s) => s.list(prefix));
  const form = new FormData();
  form.set('to', '+15550000001');
  form.set('send_at', new Date(Date.now() + 600_000).toISOString());
  form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'doc.pdf');
  const job = (await json(await fetch(`${gw.url}/fax`, { method: 'POST', body: form }))) as { id: string };
  // Not final yet: the document may still be sent.
  const early = await fetch(`${gw.url}/fax/${job.id}/document`, { method: 'DELETE' });
  assert.is(early.status, 409);
  assert.is(((await early.json()) as { code: string }).code, 'fax_document_in_use');
  assert.is((await fetch(`${gw.url}/fax/${job.id}/cancel`, { method: 'POST' })).status, 200);
  assert.ok((await stored(`fax/${job.id}/`)).length > 0);
  assert.is((await fetch(`${gw.url}/fax/${job.id}/document`, { method: 'DELETE' })).status, 204);
  assert.equal(await stored(`fax/${job.id}/`), []);
  for (const path of [`/admin/fax-jobs/${job.id}/pdf`, `/fax/${job.id}/resend`]) {
    const res = await fetch(`${gw.url}${path}`, { method: path.endsWith('resend') ? 'POST' : 'GET' });
    assert.is(res.status, 410, path);
    assert.is(((await res.json()) as { code: string }).code, 'document_deleted');
  }
  assert.is(((await json(await fetch(`${gw.url}/fax/${job.id}`))) as { id: string }).id, job.id, 'the job stays');
  assert.is((await fetch(`${gw.url}/fax/${job.id}/document`, { method: 'DELETE' })).status, 204, 'again: nothing left, still 204');

  const body = JSON.stringify({ from: '+15550000009', to: '+15550000002', pdf_base64: pdf.toString('base64') });
  const hook = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': createHmac('sha256', SIM_SECRET).update(body).digest('hex') }, body });
  const inbound = ((await hook.json()) as { id: string }).id;
  const link = ((await json(await fetch(`${gw.url}/inbound/${inbound}`))) as { pdf_url: string }).pdf_url;
  assert.is((await fetch(`${gw.url}${link}`)).status, 200);
  assert.is((await fetch(`${gw.url}/inbound/${inbound}`, { method: 'DELETE' })).status, 204);
  assert.equal(await stored(`inbound/${inbound}/`), []);
  const gone = await fetch(`${gw.url}${link}`);
  assert.is(gone.status, 410);
  assert.is(((await gone.json()) as { code: string }).code, 'document_deleted');
  assert.ok(((await json(await fetch(`${gw.url}/inbound/${inbound}`))) as { deleted_at?: string }).deleted_at);
  assert.is((await fetch(`${gw.url}/inbound/no-such-fax`, { method: 'DELETE' })).status, 404);
  const events = await until(async () => {
    await gw.gateway.audit.flush();
    const rows = await gatewayDb(gw.gateway).selectFrom('audit_events').select('event').where('event', 'in', ['job_document_deleted', 'inbound_deleted']).execute();
    return rows.length >= 3 && rows.map((r) => r.event).sort();
  });
  assert.equal(events, ['inbound_deleted', 'job_document_deleted', 'job_document_deleted']);
}

const base = { FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '100', FAX_SIM_SECRET: SIM_SECRET, FAX_DISPATCH_POLL_MS: '50', INBOUND_ENABLED: 'true', AUDIT_LOG_ENABLED: 'true' };

test('local storage: deleted media is gone, answers 410 on every route, the records stay and the deletions are audited', async () => {
  const gw = await startGateway(base);
  try {
    await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
    await exercise(gw);
  } finally {
    await gw.close();
  }
});

test('S3 storage (s3rver): the same', async () => {
  const s3 = await startS3Server(['artifacts']);
  const gw = await startGateway({ ...base, STORAGE_BACKEND: 'storage-s3', S3_BUCKET: 'artifacts', S3_PREFIX: 'gw/', S3_ENDPOINT_URL: s3.url, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY });
  try {
    await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim') && gw.gateway.kernel.isActive('storage', 'storage-s3'), 15000);
    await exercise(gw);
  } finally {
    await gw.close();
    await s3.close();
  }
});

test.run();
