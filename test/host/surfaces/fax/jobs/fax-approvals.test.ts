import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { utimesSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type OpenedDatabase } from '../../../../../host/platform/db/database.js';
import { APPROVAL_CLAIM_MS, APPROVAL_SWEEP_GRACE_MS, approvalDocumentKey, FaxApprovals } from '../../../../../host/surfaces/fax/jobs/fax-approvals.js';
import { createLocalStorage } from '../../../../../plugins/storage-local/index.js';
import type { StorageProvider } from '../../../../../core/sdk/index.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';

// Approvals in the shared database, as two instances of a cluster see them: each its own pool,
// one storage. Single use holds when both claim at once; a claim whose sender died lapses.
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let a: OpenedDatabase;
let b: OpenedDatabase;
let storage: StorageProvider;
const dirs = [tempDir(), tempDir(), tempDir()];
let clock = Date.now();
const now = () => clock;
const on = (db: OpenedDatabase) => new FaxApprovals({ db: db.db, withStorage: (fn) => fn(storage), ttlSeconds: () => 600, now });
const status = (fn: () => Promise<unknown>) => fn().then(() => 200, (err: { status?: number; code?: string }) => err.code ?? err.status ?? 500);

test.before(async () => {
  pgdb = await freshPostgresDatabase();
  a = await openDatabase({ url: pgdb.url, dataDir: dirs[0]! });
  b = await openDatabase({ url: pgdb.url, dataDir: dirs[1]! });
  storage = createLocalStorage(dirs[2]!);
});
test.after(async () => {
  await a?.close();
  await b?.close();
  await pgdb?.drop();
  dirs.forEach(removeDir);
});

test('prepared on one instance, claimed on the other: the document comes from storage, and only one of two claims at once wins', async () => {
  const doc = Buffer.from('%PDF-1.4 approval document');
  const fax = await on(a).prepare('key-1', '+15550100001', doc, 1);
  assert.ok(await storage.exists(approvalDocumentKey(fax.approvalId)));
  const [one, two] = [on(a), on(b)];
  const outcomes = await Promise.allSettled([one.claim('key-1', fax.approvalId, {}), two.claim('key-1', fax.approvalId, {})]);
  const won = outcomes.filter((o) => o.status === 'fulfilled');
  assert.is(won.length, 1, JSON.stringify(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code: string }).code : 'won'))));
  assert.is(((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason as { code: string }).code, 'approval_used');
  const claimed = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<FaxApprovals['claim']>>>).value;
  assert.equal(await two.document(claimed), doc);
  await two.sent(claimed, 'job-1');
  assert.not.ok(await storage.exists(claimed.documentKey), 'a spent approval\'s document is removed');
  assert.is(await status(() => on(a).claim('key-1', fax.approvalId, {})), 'approval_used');
  assert.is(await status(() => on(b).claim('key-2', fax.approvalId, {})), 'approval_unknown', 'another caller does not learn it exists');
});

test('a released claim is usable again; a claim whose sender died lapses after APPROVAL_CLAIM_MS; expiry refuses', async () => {
  const fax = await on(a).prepare('key-1', '+15550100002', Buffer.from('doc two'), 1);
  const first = await on(a).claim('key-1', fax.approvalId, {});
  assert.is(await status(() => on(b).claim('key-1', fax.approvalId, {})), 'approval_used', 'held while being sent');
  await on(a).release(first);
  const second = await on(b).claim('key-1', fax.approvalId, {});
  // The instance holding `second` dies: nobody releases it.
  assert.ok(second);
  clock += APPROVAL_CLAIM_MS + 1;
  assert.ok(await on(a).claim('key-1', fax.approvalId, {}), 'taken over once the claim lapsed');
  const late = await on(a).prepare('key-1', '+15550100003', Buffer.from('doc three'), 1);
  clock += 601_000;
  assert.is(await status(() => on(b).claim('key-1', late.approvalId, {})), 'approval_expired');
});

test('the sweep removes spent and long-expired approvals with their documents, and documents no row names', async () => {
  clock = Date.now();
  await a.db.deleteFrom('fax_approvals').execute();
  const live = await on(a).prepare('key-1', '+15550100004', Buffer.from('live'), 1);
  const spent = await on(a).prepare('key-1', '+15550100005', Buffer.from('spent'), 1);
  await on(b).sent(await on(b).claim('key-1', spent.approvalId, {}), 'job-2');
  const stale = await on(a).prepare('key-1', '+15550100006', Buffer.from('stale'), 1);
  await a.db.updateTable('fax_approvals').set({ expires_at: clock - APPROVAL_SWEEP_GRACE_MS - 1 }).where('id', '=', stale.approvalId).execute();
  await a.db.updateTable('fax_approvals').set({ expires_at: clock - 1 }).where('id', '=', spent.approvalId).execute();
  await storage.put(approvalDocumentKey('orphan-1'), Buffer.from('left by a failed prepare'));
  const old = (Date.now() - APPROVAL_SWEEP_GRACE_MS - 60_000) / 1000;
  utimesSync(path.join(dirs[2]!, approvalDocumentKey('orphan-1')), old, old);
  assert.is(await on(b).sweep(storage, clock), 2);
  const left = (await a.db.selectFrom('fax_approvals').select('id').execute()).map((r) => r.id);
  assert.equal(left, [live.approvalId]);
  assert.ok(await storage.exists(live.documentKey));
  assert.not.ok(await storage.exists(stale.documentKey));
  assert.not.ok(await storage.exists(approvalDocumentKey('orphan-1')));
});

test.run();
