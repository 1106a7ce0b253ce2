import { rmSync } from 'node:fs';
import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AuditLog } from '../../../../../host/platform/audit/audit-log.js';
import { FaxJobStore } from '../../../../../host/surfaces/fax/jobs/job-store.js';
import { JobUpdates } from '../../../../../host/surfaces/fax/jobs/job-updates.js';
import { tempDir } from '../../../../support/gateway.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../../../support/database.js';

/** The one status-writing path: applied forward only, audited once per change, whoever reports it. */
let dir: string;
let opened: GatewayDatabase;
let store: FaxJobStore;
let updates: JobUpdates;
const records: Array<Record<string, unknown>> = [];
let n = 0;

async function sentJob(): Promise<{ id: string; backend: string }> {
  const id = `job-u-${++n}`;
  await store.insert({ id, to: '+15550100100', backend: 'pbxb', pdfKey: 'fax/x/document.pdf', pages: 1, sourceType: 'pdf', sizeBytes: 100, disabled: false });
  const [claimed] = await store.claim('owner-1', 1, 60_000);
  assert.is(claimed?.id, id);
  assert.ok(await store.markSending(id, 'owner-1'));
  return { id, backend: 'pbxb' };
}
const of = (id: string) => records.filter((r) => r.job_id === id).map((r) => `${r.event}:${r.status}:${r.via}`);

test.before(async () => {
  dir = tempDir();
  opened = await openGatewayDatabase({ dataDir: dir });
  store = new FaxJobStore(opened.db, opened.dialect);
  const audit = new AuditLog({ enabled: () => true, file: () => undefined, logger: pino({ level: 'silent' }) });
  audit.subscribe((r) => records.push(r));
  updates = new JobUpdates({ store, audit });
});
test.after(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

test('an accepted send, then the same final result from two sources: applied and audited once', async () => {
  const job = await sentJob();
  assert.ok(await updates.applyUpdate(job, { status: 'queued', providerSid: 'sid-1' }, 'dispatch', { owner: 'owner-1' }));
  assert.is((await store.get(job.id))?.status, 'in_progress');
  assert.ok(await updates.applyUpdate(job, { status: 'SUCCESS', pages: 2 }, 'event'));
  assert.not.ok(await updates.applyUpdate(job, { status: 'SUCCESS', pages: 2 }, 'callback'));
  assert.not.ok(await updates.applyUpdate(job, { status: 'FAILED', error: 'late' }, 'callback'), 'a finished job never changes');
  assert.equal(of(job.id), ['job_updated:queued:dispatch', 'job_updated:SUCCESS:event']);
  const row = await store.get(job.id);
  assert.equal([row?.status, row?.pages, row?.dispatch_state, row?.error], ['SUCCESS', 2, 'done', null]);
});

test('a failure is audited as job_failed with its error; fail() is the same path', async () => {
  const a = await sentJob();
  await updates.applyUpdate(a, { status: 'queued', providerSid: 'sid-a' }, 'dispatch', { owner: 'owner-1' });
  assert.ok(await updates.applyUpdate(a, { status: 'FAILED', error: 'busy' }, 'poll'));
  const b = await sentJob();
  assert.ok(await updates.fail(b, 'no result within 1 minutes', 'timeout'));
  assert.not.ok(await updates.fail(b, 'again', 'timeout'));
  assert.equal(of(a.id).slice(-1), ['job_failed:FAILED:poll']);
  assert.equal(of(b.id), ['job_failed:FAILED:timeout']);
  assert.is(records.find((r) => r.job_id === b.id)?.error, 'no result within 1 minutes');
});

test('a repeated final result that adds the page count refines it (and says so once)', async () => {
  const job = await sentJob();
  await updates.applyUpdate(job, { status: 'queued', providerSid: 'sid-p' }, 'dispatch', { owner: 'owner-1' });
  await updates.applyUpdate(job, { status: 'SUCCESS' }, 'event');
  assert.ok(await updates.applyUpdate(job, { status: 'SUCCESS', pages: 4 }, 'callback'));
  assert.not.ok(await updates.applyUpdate(job, { status: 'SUCCESS', pages: 4 }, 'callback'));
  assert.is((await store.get(job.id))?.pages, 4);
});

test.run();
