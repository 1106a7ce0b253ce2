import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { utimesSync } from 'node:fs';
import path from 'node:path';
import { databaseNow } from '../../../../../host/platform/db/database-clock.js';
import { APPROVAL_SWEEP_GRACE_MS, approvalDocumentKey, FaxApprovals } from '../../../../../host/surfaces/fax/jobs/fax-approvals.js';
import { createLocalStorage } from '../../../../../plugins/storage-local/index.js';
import type { StorageProvider } from '../../../../../core/sdk/index.js';
import { removeDir, tempDir, until } from '../../../../support/gateway.js';
import { withClockSkew } from '../../../../support/clock-skew.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../../../support/database.js';

// Approvals in the shared database, as two instances of a cluster see them: each its own pool,
// one storage. Single use holds when both claim at once; a claim whose sender died lapses; expiry
// and claims go by the database's clock, whatever the instances' clocks say.
let pgdb: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let a: GatewayDatabase;
let b: GatewayDatabase;
let storage: StorageProvider;
const dirs = [tempDir(), tempDir(), tempDir()];
const tenMinutes = 600_000;
const on = (db: GatewayDatabase, opts: { ttlSeconds?: number; claimMs?: number } = {}) =>
  new FaxApprovals({ db: db.db, dialect: db.dialect, withStorage: (fn) => fn(storage), ttlSeconds: () => opts.ttlSeconds ?? 600, claimMs: opts.claimMs });
const status = (fn: () => Promise<unknown>) => fn().then(() => 200, (err: { status?: number; code?: string }) => err.code ?? err.status ?? 500);

test.before(async () => {
  pgdb = await freshPostgresDatabase();
  a = await openGatewayDatabase({ url: pgdb.url, dataDir: dirs[0]! });
  b = await openGatewayDatabase({ url: pgdb.url, dataDir: dirs[1]! });
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

test('a released claim is usable again; a claim whose sender died lapses after its claim time; expiry refuses', async () => {
  const fax = await on(a).prepare('key-1', '+15550100002', Buffer.from('doc two'), 1);
  const first = await on(a).claim('key-1', fax.approvalId, {});
  assert.is(await status(() => on(b).claim('key-1', fax.approvalId, {})), 'approval_used', 'held while being sent');
  await on(a).release(first);
  // Claimed again, for a short time, by an instance that then dies: nobody releases it.
  assert.ok(await on(b, { claimMs: 200 }).claim('key-1', fax.approvalId, {}));
  assert.ok(await until(() => on(a).claim('key-1', fax.approvalId, {})), 'taken over once the claim lapsed');

  const late = await on(a, { ttlSeconds: 1 }).prepare('key-1', '+15550100003', Buffer.from('doc three'), 1);
  const row = await a.db.selectFrom('fax_approvals').select('expires_at').where('id', '=', late.approvalId).executeTakeFirstOrThrow();
  assert.is(late.expiresAt, Number(row.expires_at), 'the expiry answered is the one written');
  // Past its expiry by the database's clock (claiming meanwhile would spend it):
  await until(() => a.db.selectFrom('fax_approvals').select('id').where('id', '=', late.approvalId).where('expires_at', '<', databaseNow(a.dialect)).executeTakeFirst());
  assert.is(await status(() => on(b).claim('key-1', late.approvalId, {})), 'approval_expired');
});

test('expiry and claims go by the database\'s clock: an instance 10 minutes ahead sees a live claim and an unexpired approval as such, one 10 minutes behind still writes a live claim and a live approval', async () => {
  const held = await on(a, { ttlSeconds: 3600 }).prepare('key-1', '+15550100007', Buffer.from('held'), 1);
  await on(a).claim('key-1', held.approvalId, {});
  assert.is(await withClockSkew(tenMinutes, () => status(() => on(b).claim('key-1', held.approvalId, {}))), 'approval_used', 'ahead: the claim is live');
  const fresh = await on(a, { ttlSeconds: 300 }).prepare('key-1', '+15550100008', Buffer.from('fresh'), 1);
  assert.is(await withClockSkew(tenMinutes, () => status(() => on(b).claim('key-1', fresh.approvalId, {}))), 200, 'ahead: the approval is not expired');

  const waiting = await on(a, { ttlSeconds: 3600 }).prepare('key-1', '+15550100009', Buffer.from('waiting'), 1);
  await withClockSkew(-tenMinutes, () => on(b).claim('key-1', waiting.approvalId, {}));
  assert.is(await status(() => on(a).claim('key-1', waiting.approvalId, {})), 'approval_used', 'behind: the claim written is live');
  const prepared = await withClockSkew(-tenMinutes, () => on(b, { ttlSeconds: 300 }).prepare('key-1', '+15550100010', Buffer.from('prepared behind'), 1));
  assert.is(await status(() => on(a).claim('key-1', prepared.approvalId, {})), 200, 'behind: the approval written is live');
});

test('the sweep removes spent and long-expired approvals with their documents, and documents no row names; expiry by the database\'s clock', async () => {
  await a.db.deleteFrom('fax_approvals').execute();
  const live = await on(a).prepare('key-1', '+15550100004', Buffer.from('live'), 1);
  const spent = await on(a).prepare('key-1', '+15550100005', Buffer.from('spent'), 1);
  await on(b).sent(await on(b).claim('key-1', spent.approvalId, {}), 'job-2');
  // Spent and not yet expired: kept, so a repeated send still answers approval_used.
  const justSpent = await on(a, { ttlSeconds: 300 }).prepare('key-1', '+15550100011', Buffer.from('just spent'), 1);
  await on(b).sent(await on(b).claim('key-1', justSpent.approvalId, {}), 'job-3');
  const stale = await on(a).prepare('key-1', '+15550100006', Buffer.from('stale'), 1);
  const { expires_at: spentUntil } = await a.db.selectFrom('fax_approvals').select('expires_at').where('id', '=', spent.approvalId).executeTakeFirstOrThrow();
  await a.db.updateTable('fax_approvals').set({ expires_at: Number(spentUntil) - 601_000 }).where('id', '=', spent.approvalId).execute();
  await a.db.updateTable('fax_approvals').set({ expires_at: Number(spentUntil) - 601_000 - APPROVAL_SWEEP_GRACE_MS }).where('id', '=', stale.approvalId).execute();
  await storage.put(approvalDocumentKey('orphan-1'), Buffer.from('left by a failed prepare'));
  const old = (Date.now() - APPROVAL_SWEEP_GRACE_MS - 60_000) / 1000;
  utimesSync(path.join(dirs[2]!, approvalDocumentKey('orphan-1')), old, old);
  // Swept by an instance whose clock is 10 minutes ahead: it removes nothing early.
  assert.is(await withClockSkew(tenMinutes, () => on(b).sweep(storage)), 2);
  const left = (await a.db.selectFrom('fax_approvals').select('id').execute()).map((r) => r.id);
  assert.equal(left.sort(), [live.approvalId, justSpent.approvalId].sort());
  assert.ok(await storage.exists(live.documentKey));
  assert.not.ok(await storage.exists(stale.documentKey));
  assert.not.ok(await storage.exists(approvalDocumentKey('orphan-1')));
});

test.run();
