import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Insertable } from 'kysely';
import type { AlertDeliveryTable } from '../../../../../host/surfaces/workbench/workbench-tables.js';
import { SURFACES } from '../../../../../host/surfaces/gateway.js';
import { PLATFORM_MIGRATIONS } from '../../../../../host/platform/db/platform-migrations.js';
import { WORKBENCH_MIGRATIONS } from '../../../../../host/surfaces/workbench/workbench-migrations.js';
import { openGatewayDatabase } from '../../../../support/database.js';
import { ROOT, startGateway, json, until, tempDir, removeDir } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { startAlertReceiver } from '../../../../fakes/alert-receiver.js';

/**
 * What a gateway of commit c5a2287 left in its SQLite database: a test alert to a WEBHOOK_TARGETS
 * URL, pending, for target `webhook:<hash>`. Written by test/fixtures/upgrade/write-c5a2287-alert-outbox.mjs
 * running that commit's build.
 */
interface OldDatabase {
  webhook_targets: string;
  target: string;
  schema: string[];
  kysely_migration: Array<{ name: string; timestamp: string }>;
  alert_deliveries: Array<Record<string, string | number | null>>;
}
const OLD: OldDatabase = JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/upgrade/c5a2287-alert-outbox.json'), 'utf8'));

/** The hash c5a2287 named a WEBHOOK_TARGETS URL by (`webhook:<hash>`). */
const oldHash = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 12);

test('the fixture is what c5a2287 wrote: its id scheme, a pending row, and migrations each adopted by a migration of this tree', () => {
  assert.is(OLD.target, `webhook:${oldHash(OLD.webhook_targets)}`);
  assert.equal(OLD.alert_deliveries.map((r) => [r.target_id, r.state, r.attempts]), [[OLD.target, 'pending', 0]]);
  const owners = [PLATFORM_MIGRATIONS, ...Object.values(SURFACES).map((s) => s.migrations)];
  const replaced = new Set(owners.flatMap((o) => Object.values(o.migrations).flatMap((m) => (m.replaces ? [m.replaces] : []))));
  assert.equal(OLD.kysely_migration.map((m) => m.name).sort(), [...replaced].sort());
});

test('after the upgrade a pending delivery of c5a2287 to a WEBHOOK_TARGETS URL is delivered once, through the instance of that URL', async () => {
  const receiver = await startAlertReceiver();
  const dataDir = tempDir();
  // The database as c5a2287 left it. Only the target's hash is this receiver's: its port is chosen now.
  const hash = oldHash(receiver.url);
  const file = new Database(path.join(dataDir, 'switchboard.sqlite'));
  for (const statement of OLD.schema) file.exec(statement);
  for (const m of OLD.kysely_migration) file.prepare('insert into kysely_migration (name, timestamp) values (?, ?)').run(m.name, m.timestamp);
  const row: Record<string, string | number | null> = { ...OLD.alert_deliveries[0]!, target_id: `webhook:${hash}` };
  file.prepare(`insert into alert_deliveries (${Object.keys(row).join(', ')}) values (${Object.keys(row).map(() => '?').join(', ')})`).run(...Object.values(row));
  file.close();

  const gw = await startGateway({ ALERT_EVAL_INTERVAL_SECONDS: '3600', ALERT_RETRY_BASE_MS: '50', WEBHOOK_TARGETS: receiver.url, ALERT_WEBHOOK_CA_FILE: receiver.caFile! }, { dataDir });
  try {
    await until(() => receiver.received.length === 1, 10_000);
    const got = receiver.received[0]!;
    assert.is(JSON.stringify(got.body), row.notice, 'the notice exactly as c5a2287 stored it');
    assert.is(got.headers['idempotency-key'], JSON.parse(String(row.notice)).event_id);
    const target = `plugin:alert-webhook-${hash}`;
    const delivered = await until(async () => {
      const d = (await json(await fetch(`${gw.url}/admin/alerts/deliveries`))).deliveries.find((x: any) => x.id === row.id);
      return d?.state === 'delivered' ? d : undefined;
    });
    assert.is(delivered.target, target);
    assert.is(delivered.attempts, 1);
    const instance = (await json(await fetch(`${gw.url}/plugins/alert-webhook-${hash}`)));
    assert.equal([instance.instance_of, instance.state], ['alert-webhook', 'active']);
    assert.equal((await json(await fetch(`${gw.url}/admin/integrations/webhooks`))).targets.map((t: any) => t.id), [target]);
    // Exactly once: nothing is left to claim, so no later round can send it again.
    assert.equal(await gw.gateway.surfaces.workbench.alerts.outbox.claim('probe', 10, 1), []);
    assert.is(receiver.received.length, 1, 'delivered once');
    assert.equal((await gw.gateway.surfaces.workbench.alerts.outbox.recent(10)).map((r) => r.target_id), [target], 'no row is left on the old id');
  } finally {
    await gw.close();
    await receiver.close();
    removeDir(dataDir);
  }
});

test('PostgreSQL: the migration moves webhook: rows to their instance ids and leaves plugin: rows as they were', async () => {
  const pgdb = await freshPostgresDatabase();
  const dir = tempDir();
  const opened = await openGatewayDatabase({ url: pgdb.url, dataDir: dir });
  try {
    // The row as c5a2287 stored it (its columns are this tree's too).
    const webhookRow = { ...OLD.alert_deliveries[0]! } as unknown as Insertable<AlertDeliveryTable>;
    const pluginRow = { ...webhookRow, id: 'other-row', target_id: 'plugin:alert-slack' };
    await opened.db.insertInto('alert_deliveries').values([webhookRow, pluginRow]).execute();
    // What a database of c5a2287 meets at its first start on this version: the migration itself, on PostgreSQL.
    await WORKBENCH_MIGRATIONS.migrations['0003_alert_targets_are_plugins']!.up(opened.db);
    const rows = await opened.db.selectFrom('alert_deliveries').select(['id', 'target_id', 'notice', 'state']).orderBy('id').execute();
    assert.equal(
      rows.map((r) => [r.id, r.target_id, r.state]),
      [
        [OLD.alert_deliveries[0]!.id, `plugin:alert-webhook-${oldHash(OLD.webhook_targets)}`, 'pending'],
        ['other-row', 'plugin:alert-slack', 'pending'],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    assert.is(rows.find((r) => r.id === OLD.alert_deliveries[0]!.id)?.notice, OLD.alert_deliveries[0]!.notice);
  } finally {
    await opened.close();
    await pgdb.drop();
    removeDir(dir);
  }
});

test.run();
