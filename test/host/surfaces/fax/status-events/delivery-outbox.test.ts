import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Kysely } from 'kysely';
import { DeliveryOutbox, type NewDelivery } from '../../../../../host/surfaces/fax/status-events/delivery-outbox.js';
import type { FaxTables } from '../../../../../host/surfaces/fax/fax-tables.js';
import { openGatewayDatabase, type GatewayDatabase } from '../../../../support/database.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';

/**
 * The status events' outbox on SQLite and on PostgreSQL: deliveries enqueued in one turn share one
 * INSERT and each caller settles once it is committed; a batch is marked delivered in one write;
 * a job's next event is claimable only after its earlier one is no longer pending.
 */
const delivery = (subject: string, type: string, at: number): NewDelivery => ({
  eventId: `evt_${subject}_${type}`,
  eventType: type,
  subjectId: subject,
  destination: 'subscription:s1',
  owner: 'k1',
  url: 'https://receiver.example/hook',
  body: JSON.stringify({ type }),
  eventAt: at,
});

function outboxSuite(dialect: string, databaseUrl: () => Promise<{ url?: string; drop(): Promise<void> }>) {
  let dir: string;
  let database: GatewayDatabase;
  let inserts: number;
  let outbox: DeliveryOutbox;
  let dropDatabase: () => Promise<void>;
  const test = suite(dialect);

  test.before(async () => {
    dir = tempDir('switchboard-outbox-');
    const target = await databaseUrl();
    dropDatabase = target.drop;
    database = await openGatewayDatabase({ dataDir: dir, url: target.url });
    // The gateway's connection, each INSERT counted on its way to the database.
    outbox = new DeliveryOutbox(database.db.withPlugin({ transformQuery: ({ node }) => (node.kind === 'InsertQueryNode' && inserts++, node), transformResult: async ({ result }) => result }) as unknown as Kysely<FaxTables>, database.dialect);
  });
  test.after(async () => {
    await database?.close();
    await dropDatabase?.();
    removeDir(dir);
  });

  test('deliveries enqueued in one turn share one INSERT; each caller settles after the commit; a repeated event is written once', async () => {
    inserts = 0;
    const now = Date.now();
    const calls = Array.from({ length: 20 }, (_, i) => outbox.enqueue([delivery(`job${i}`, 'fax.queued', now)]));
    calls.push(outbox.enqueue([delivery('job0', 'fax.queued', now)]));
    await Promise.all(calls);
    assert.is(inserts, 1);
    assert.is((await outbox.list({}, 100)).length, 20);
    // A later turn is a new INSERT.
    await outbox.enqueue([delivery('job0', 'fax.sending', now + 1)]);
    assert.is(inserts, 2);
  });

  test("a batch is marked delivered in one write; a job's next event is claimed only after it", async () => {
    const first = await outbox.claim('w1', 100, 60_000);
    assert.is(first.length, 20, 'one event per job: job0 sending waits behind job0 queued');
    assert.not.ok(first.some((r) => r.event_type === 'fax.sending'));
    assert.equal(await outbox.claim('w1', 100, 60_000), [], 'nothing more until the batch is marked');
    await outbox.deliveredAll(first.map((r, i) => ({ id: r.id, status: i % 2 ? 200 : 204 })), 'w1');
    const rows = await outbox.list({ state: 'delivered' }, 100);
    assert.is(rows.length, 20);
    assert.ok(rows.every((r) => r.attempts === 1 && r.lease_owner === null && r.finished_at !== null && (r.last_status === 200 || r.last_status === 204)));
    const next = await outbox.claim('w1', 100, 60_000);
    assert.equal(next.map((r) => [r.subject_id, r.event_type]), [['job0', 'fax.sending']]);
    // Another owner's lease is left alone.
    await outbox.deliveredAll([{ id: next[0]!.id, status: 200 }], 'w2');
    assert.is((await outbox.get(next[0]!.id))!.state, 'pending');
  });

  test.run();
}

outboxSuite('sqlite', async () => ({ drop: async () => {} }));
outboxSuite('postgres', freshPostgresDatabase);
