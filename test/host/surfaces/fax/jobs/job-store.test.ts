import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { sql } from '../../../../../host/platform/db/kysely-runtime.js';
import { FaxJobStore } from '../../../../../host/surfaces/fax/jobs/job-store.js';
import { tempDir, until } from '../../../../support/gateway.js';
import { withClockSkew } from '../../../../support/clock-skew.js';
import { SQLITE_AND_POSTGRES } from '../../../../support/pg.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../../../support/database.js';

let n = 0;
const newJob = (over: Partial<Parameters<FaxJobStore['insert']>[0]> = {}) => ({
  id: `job-${++n}-${Math.random().toString(36).slice(2, 8)}`,
  to: '+15550100100',
  backend: 'providera',
  pdfKey: 'fax/x/document.pdf',
  pages: 1,
  sourceType: 'pdf',
  sizeBytes: 100,
  disabled: false,
  ...over,
});

for (const backend of SQLITE_AND_POSTGRES) {
  const test = suite(`job store on ${backend.name}`);
  let opened: { db: GatewayDatabase; cleanup(): Promise<void> };
  let store: FaxJobStore;

  test.before(async () => {
    opened = await backend.open();
    store = new FaxJobStore(opened.db.db, opened.db.dialect);
  });
  test.after(async () => {
    await opened.db.close();
    await opened.cleanup();
  });
  test.before.each(async () => {
    await opened.db.db.deleteFrom('fax_jobs').execute();
  });

  test('migrations are applied and a job round-trips', async () => {
    const job = newJob();
    await store.insert(job);
    const row = await store.get(job.id);
    assert.ok(row);
    assert.is(row!.status, 'queued');
    assert.is(row!.dispatch_state, 'pending');
    assert.is(row!.to_number, job.to);
    assert.is(typeof row!.next_attempt_at, 'number');
  });

  test('a job is read with the jobs that resend it, oldest first, in one statement when there are none', async () => {
    const original = newJob();
    await store.insert(original);
    const lone = await store.getWithResends(original.id);
    assert.equal([lone?.row.id, lone?.resentAs], [original.id, []]);
    assert.not.ok('resend_count' in lone!.row, 'the count is not a column of the row');
    const first = newJob({ resendOf: original.id });
    await store.insert(first);
    const second = newJob({ resendOf: original.id });
    await store.insert(second);
    await opened.db.db.updateTable('fax_jobs').set({ created_at: '2000-01-01T00:00:00.000Z' }).where('id', '=', second.id).execute();
    assert.equal((await store.getWithResends(original.id))?.resentAs, [second.id, first.id]);
    assert.equal((await store.getWithResends(first.id))?.resentAs, []);
    assert.is(await store.getWithResends('no-such-job'), undefined);
  });

  test('a disabled job is stored final and never claimable', async () => {
    const job = newJob({ disabled: true });
    await store.insert(job);
    assert.is((await store.get(job.id))!.status, 'disabled');
    assert.equal(await store.claim('a', 10, 60_000), []);
  });

  test('concurrent claims never hand one job to two owners', async () => {
    const db = opened.db.db;
    // PostgreSQL: a trigger sleeps in every claimed row's update, so eight claimers started together
    // are all inside the claim window (candidates chosen, rows not yet written) at once. Without the
    // claim guard (FOR UPDATE SKIP LOCKED plus the lease recheck in the UPDATE) they take the same
    // rows. SQLite runs each UPDATE under its single writer lock, so there the claim is atomic by
    // construction and this checks that several connections see each other's leases.
    const widen = opened.db.dialect === 'postgres';
    if (widen) {
      await sql`CREATE OR REPLACE FUNCTION test_claim_pause() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.004); RETURN NEW; END $$ LANGUAGE plpgsql`.execute(db);
      await sql`CREATE TRIGGER test_claim_pause BEFORE UPDATE ON fax_jobs FOR EACH ROW EXECUTE FUNCTION test_claim_pause()`.execute(db);
    }
    const extra = widen ? [] : await Promise.all(Array.from({ length: 3 }, () => openGatewayDatabase({ dataDir: path.dirname(opened.db.location) })));
    const stores = [store, ...extra.map((o) => new FaxJobStore(o.db, o.dialect))];
    try {
      for (let round = 0; round < 4; round++) {
        await db.deleteFrom('fax_jobs').execute();
        for (let i = 0; i < 48; i++) await store.insert(newJob());
        const owners = Array.from({ length: 8 }, (_, i) => `owner-${round}-${i}`);
        const claims = await Promise.all(owners.map((owner, i) => stores[i % stores.length]!.claim(owner, 8, 60_000)));
        // Which claimer was handed each job, as its caller sees it.
        const holder = new Map<string, string>();
        claims.forEach((rows, i) => {
          for (const row of rows) {
            assert.not.ok(holder.has(row.id), `round ${round}: job ${row.id} handed to ${holder.get(row.id)} and to ${owners[i]}`);
            holder.set(row.id, owners[i]!);
            assert.is(row.lease_owner, owners[i]);
          }
        });
        assert.ok(holder.size > 0, `round ${round}: nothing was claimed`);
        // Claimers that skip rows another holds each get work; claims that wait on each other's
        // locks (no SKIP LOCKED) leave all but the first empty-handed.
        assert.ok(new Set(holder.values()).size > 1, `round ${round}: only one of 8 concurrent claimers got work`);
        // The database names the same owner for every claimed job, and no owner for the rest.
        const rows = await db.selectFrom('fax_jobs').select(['id', 'lease_owner']).execute();
        for (const row of rows) assert.is(row.lease_owner ?? undefined, holder.get(row.id), `round ${round}: lease of ${row.id}`);
        const rest = await store.claim(`late-${round}`, 100, 60_000);
        assert.is(holder.size + rest.length, 48, 'every job claimed once in all');
        assert.equal(await store.claim('e', 10, 60_000), [], 'nothing left while leases hold');
      }
    } finally {
      for (const o of extra) await o.close();
      if (widen) {
        await sql`DROP TRIGGER test_claim_pause ON fax_jobs`.execute(db);
        await sql`DROP FUNCTION test_claim_pause()`.execute(db);
      }
    }
  });

  // PostgreSQL only: SQLite has one writer and no row locks to skip.
  if (backend.name === 'postgres')
    test('a claim skips a row another transaction holds locked instead of waiting for it (SKIP LOCKED)', async () => {
      const held = newJob();
      const free = newJob();
      await store.insert(held);
      await store.insert(free);
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      // Another instance in the middle of its claim of `held`: the row is locked until it commits.
      const holder = opened.db.db.transaction().execute(async (trx) => {
        await sql`SELECT id FROM fax_jobs WHERE id = ${held.id} FOR UPDATE`.execute(trx);
        locked();
        await released;
      });
      await isLocked;
      let timer: NodeJS.Timeout | undefined;
      try {
        // Without SKIP LOCKED the claim waits for the holder, which only lets go after this deadline.
        const blocked = new Promise<'blocked'>((r) => (timer = setTimeout(() => r('blocked'), 5000)));
        const claimed = await Promise.race([store.claim('skipper', 10, 60_000), blocked]);
        assert.ok(claimed !== 'blocked', 'the claim waited on the locked row');
        assert.equal((claimed as Array<{ id: string }>).map((r) => r.id), [free.id]);
      } finally {
        clearTimeout(timer);
        release();
        await holder;
      }
    });

  test('an expired lease is claimed again; a live one is not', async () => {
    const job = newJob();
    await store.insert(job);
    assert.is((await store.claim('a', 1, 60_000)).length, 1);
    assert.is((await store.claim('b', 1, 60_000)).length, 0);
    // Renewed to a short lease that nobody renews again: it runs out and the job is free.
    await store.renew('a', [job.id], 200);
    const again = await until(async () => {
      const rows = await store.claim('b', 1, 60_000);
      return rows.length ? rows : undefined;
    });
    assert.is(again.length, 1);
    assert.is(again[0]!.lease_owner, 'b');
    assert.not.ok(await store.markSending(job.id, 'a'), 'the old owner lost the job');
    assert.ok(await store.markSending(job.id, 'b'));
  });

  test('leases run by the database\'s clock: an instance whose clock is ahead takes no job another holds, one whose clock is behind still writes and renews a live lease', async () => {
    const tenMinutes = 600_000;
    const held = newJob();
    await store.insert(held);
    assert.is((await store.claim('a', 1, 60_000)).length, 1);
    assert.equal(await withClockSkew(tenMinutes, () => store.claim('ahead', 1, 60_000)), [], 'a clock ahead sees the lease as live');
    assert.is((await store.get(held.id))!.lease_owner, 'a');

    // A job submitted through the instance whose clock is behind, due by that clock.
    const behind = newJob();
    await store.insert(behind, new Date(Date.now() - tenMinutes));
    const [taken] = await withClockSkew(-tenMinutes, () => store.claim('behind', 1, 60_000));
    assert.is(taken?.id, behind.id);
    assert.equal(await store.claim('b', 5, 60_000), [], 'a clock behind still writes a live lease');
    await withClockSkew(-tenMinutes, () => store.renew('behind', [behind.id], 60_000));
    assert.equal(await store.claim('b', 5, 60_000), [], 'and renews it live');
  });

  test('the status changes that make an event happen once mark the row in the same statement (insert, final status, cancel); other steps do not', async () => {
    const mark = async (id: string) => (await store.get(id))!.event_pending;
    const clear = (id: string) => opened.db.db.updateTable('fax_jobs').set({ event_pending: 0 }).where('id', '=', id).execute();
    const [sent, canceled, disabled] = [newJob(), newJob(), newJob({ disabled: true })];
    for (const job of [sent, canceled, disabled]) await store.insert(job);
    assert.equal([await mark(sent.id), await mark(disabled.id)], [1, 0]);
    await clear(sent.id);
    await store.applyChange(sent.id, { status: 'in_progress' });
    assert.is(await mark(sent.id), 0);
    await store.applyChange(sent.id, { status: 'SUCCESS', pages: 1 });
    assert.is(await mark(sent.id), 1);
    await clear(canceled.id);
    assert.ok(await store.cancelWaiting(canceled.id, 'canceled'));
    assert.is(await mark(canceled.id), 1);
  });

  test('status only moves forward; a repeat may refine pages', async () => {
    const job = newJob();
    await store.insert(job);
    assert.ok(await store.applyChange(job.id, { status: 'in_progress' }));
    assert.not.ok(await store.applyChange(job.id, { status: 'queued' }));
    assert.ok(await store.applyChange(job.id, { status: 'SUCCESS', pages: 2 }));
    assert.not.ok(await store.applyChange(job.id, { status: 'FAILED', error: 'late' }), 'a late failure cannot undo success');
    assert.not.ok(await store.applyChange(job.id, { status: 'in_progress' }));
    assert.ok(await store.applyChange(job.id, { status: 'SUCCESS', pages: 3 }), 'the page count is finalized');
    const row = (await store.get(job.id))!;
    assert.is(row.status, 'SUCCESS');
    assert.is(row.pages, 3);
    assert.is(row.dispatch_state, 'done');
    assert.not.ok(await store.applyChange(job.id, { status: 'SUCCESS', pages: 3 }), 'an identical repeat changes nothing');
  });

  test('an uncertain send is claimable again only for a lookup, after its recheck time', async () => {
    const job = newJob();
    await store.insert(job);
    const now = Date.now();
    await store.claim('a', 1, 60_000, now);
    assert.ok(await store.markSending(job.id, 'a', now));
    await store.markUncertain(job.id, 'a', now + 1000, 'timeout', now);
    const row = (await store.get(job.id))!;
    assert.is(row.dispatch_state, 'uncertain');
    assert.is(row.status, 'in_progress');
    assert.is((await store.claim('b', 5, 60_000, now + 500)).length, 0);
    const [again] = await store.claim('b', 5, 60_000, now + 1500);
    assert.is(again!.dispatch_state, 'uncertain');
    assert.not.ok(await store.markSending(job.id, 'b'), 'an uncertain job is never marked for sending again');
  });

  test('list pages newest first with a cursor and filters', async () => {
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 7; i++) await store.insert(newJob({ backend: i % 2 ? 'providerb' : 'providera' }), new Date(base + i * 1000));
    const page1 = await store.list({}, 3);
    assert.is(page1.length, 3);
    const last = page1[2]!;
    const page2 = await store.list({}, 3, { createdAt: last.created_at, id: last.id });
    assert.is(page2.length, 3);
    assert.ok(page2[0]!.created_at < last.created_at);
    assert.is((await store.list({ backend: 'providerb' }, 10)).length, 3);
    assert.equal(await store.countByStatus(), { queued: 7 });
  });

  test.run();
}
