import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { PROCESS_STARTED_AT } from '../../../../../host/platform/cleanup/temp-sweep.js';
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StorageProvider } from '../../../../../core/sdk/index.js';
import { gatewayDb } from '../../../../support/database.js';

const DAY = 86_400_000;
let gw: TestGateway;

const storage = <T>(fn: (s: StorageProvider) => Promise<T>) => gw.gateway.kernel.withProvider('storage', 'storage-local', fn);

async function submit(): Promise<string> {
  const form = new FormData();
  form.set('to', '+15553332222');
  form.set('file', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'a.pdf');
  const res = await fetch(`${gw.url}/fax`, { method: 'POST', body: form });
  assert.is(res.status, 202);
  return (await json(res)).id;
}

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true', ARTIFACT_TTL_DAYS: '7', INBOUND_RETENTION_DAYS: '30', AUDIT_LOG_ENABLED: 'true' });
});
test.after(async () => {
  await gw?.close();
});

test('cleanup removes exactly the expired artifacts: old finished jobs, old inbound faxes, orphans', async () => {
  const db = gatewayDb(gw.gateway);
  const [oldJob, newJob, unfinished] = [await submit(), await submit(), await submit()];
  const now = Date.now();
  await db.updateTable('fax_jobs').set({ finished_at: new Date(now - 8 * DAY).toISOString() }).where('id', '=', oldJob).execute();
  // Still being sent (and old): never touched.
  await db.updateTable('fax_jobs').set({ dispatch_state: 'accepted', status: 'in_progress', finished_at: new Date(now - 20 * DAY).toISOString() }).where('id', '=', unfinished).execute();
  for (const [id, age] of [['in-old', 31], ['in-new', 2]] as const) {
    await storage((s) => s.put(`inbound/${id}/fax.pdf`, Buffer.from('%PDF-1.4')));
    await db.insertInto('inbound_faxes').values({ id, provider: 'pbx', provider_id: id, from_number: null, to_number: null, status: 'OK', pages: 1, pdf_key: `inbound/${id}/fax.pdf`, received_at: new Date(now - age * DAY).toISOString(), created_at: now - age * DAY, source_type: 'pdf', size_bytes: 8, event_pending: 0 }).execute();
  }
  await storage(async (s) => {
    await s.put('inbound/orphan/fax.pdf', Buffer.from('x'));
    await s.put('fax/orphan-job/document.pdf', Buffer.from('x'));
    await s.put('keep/unrelated.txt', Buffer.from('x'));
  });
  // Orphans younger than the grace period stay; run two hours in the future to see them go.
  const counts = await gw.gateway.surfaces.fax.cleanup.runOnce(now + 2 * 3600_000);
  assert.equal(counts, { fax_jobs: 1, fax_files: 1, inbound_faxes: 1, inbound_files: 1, orphan_files: 2, temp_files: 0, fax_approvals: 0 });
  const keys = await storage((s) => s.list(''));
  const names = keys.map((k) => k.key).filter((k) => !k.startsWith('.'));
  assert.ok(!names.some((k) => k.startsWith(`fax/${oldJob}/`)));
  assert.ok(names.some((k) => k.startsWith(`fax/${newJob}/`)));
  assert.ok(names.some((k) => k.startsWith(`fax/${unfinished}/`)));
  assert.ok(names.includes('inbound/in-new/fax.pdf'));
  assert.ok(!names.includes('inbound/in-old/fax.pdf'));
  assert.ok(names.includes('keep/unrelated.txt'));
  assert.ok(!names.includes('inbound/orphan/fax.pdf'));
  const row = await db.selectFrom('fax_jobs').selectAll().where('id', '=', oldJob).executeTakeFirstOrThrow();
  assert.type(row.artifacts_removed_at, 'string');
  assert.is((await db.selectFrom('inbound_faxes').select('id').execute()).map((r) => r.id).join(), 'in-new');
  // the job row stays; its document link answers "document expired"
  assert.is((await fetch(`${gw.url}/fax/${oldJob}`)).status, 200);
  const token = gw.gateway.surfaces.fax.documents.documentUrl(oldJob).split('token=')[1];
  const pdf = await fetch(`${gw.url}/fax/${oldJob}/pdf?token=${token}`);
  assert.is(pdf.status, 404);
  assert.is((await json(pdf)).detail, 'document expired');
  // a second pass finds nothing
  assert.equal(await gw.gateway.surfaces.fax.cleanup.runOnce(now + 2 * 3600_000), { fax_jobs: 0, fax_files: 0, inbound_faxes: 0, inbound_files: 0, orphan_files: 0, temp_files: 0, fax_approvals: 0 });
  await gw.gateway.audit.flush();
  const audit = await db.selectFrom('audit_events').select('record').where('event', '=', 'artifacts_cleaned').execute();
  assert.is(audit.length, 1);
});

test('a pass removes upload temp files older than the process and keeps newer ones', async () => {
  const tmp = path.join(gw.dataDir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const stale = path.join(tmp, 'upload-stale.part');
  const current = path.join(tmp, 'upload-current.part');
  writeFileSync(stale, 'left by a killed process');
  writeFileSync(current, 'an upload of this process');
  const before = new Date(PROCESS_STARTED_AT - 60_000);
  utimesSync(stale, before, before);
  const counts = await gw.gateway.surfaces.fax.cleanup.runOnce();
  assert.is(counts.temp_files, 1);
  assert.equal(readdirSync(tmp), ['upload-current.part']);
  rmSync(current);
});

test.run();
