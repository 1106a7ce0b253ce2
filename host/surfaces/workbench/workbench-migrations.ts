import type { Kysely } from 'kysely';
import { notNull, nullable, primaryKey, withColumns, zeroByDefault } from '../../platform/db/table-columns.js';
import type { DeclaredMigration, OwnedMigrations } from '../../platform/db/migrations.js';
import { sql } from '../../platform/db/kysely-runtime.js';

/**
 * History, not configuration: migration 0003 moved the outbox rows of WEBHOOK_TARGETS URLs,
 * stored for target `webhook:<hash>`, to the instance of the default alert sink that delivers to
 * that URL since, target `plugin:<sink>-<hash>` (the same hash), with the sink the package had then.
 */
const MIGRATION_0003 = { storedAs: 'webhook:', instanceOf: 'alert-webhook' } as const;

/** The workbench's tables: lab runs, alerts and their deliveries. */
export const WORKBENCH_MIGRATIONS: OwnedMigrations = {
  owner: 'workbench',
  migrations: {
    '0001_lab_runs': {
      replaces: '0006_lab_runs',
      async up(db: Kysely<any>) {
        // A synthetic-data lab run keeps the request it ran, so a retry replays exactly that.
        await withColumns(db.schema.createTable('lab_runs'), [
          ['id', 'text', primaryKey],
          ['state', 'text', notNull],
          ['request', 'text', notNull],
          ['result', 'text', nullable],
          ['error_outcome', 'text', nullable],
          ['error_detail', 'text', nullable],
          ['attempts', 'integer', zeroByDefault],
          ['created_at', 'text', notNull],
          ['updated_at', 'text', notNull],
          ['finished_at', 'text', nullable],
        ]).execute();
      },
    },
    '0002_alerts': {
      replaces: '0007_alerts',
      async up(db: Kysely<any>) {
        // One row per alert instance (type + labels): fired once, repeated, resolved once.
        await withColumns(db.schema.createTable('alerts_active'), [
          ['id', 'text', primaryKey],
          ['type', 'text', notNull],
          ['severity', 'text', notNull],
          ['labels', 'text', notNull],
          ['title', 'text', notNull],
          ['context', 'text', notNull],
          ['status', 'text', notNull],
          ['fired_at', 'bigint', notNull],
          ['resolved_at', 'bigint', nullable],
          ['updated_at', 'bigint', notNull],
        ]).execute();
        // The outbox: one row per notice and target, claimed with a lease like fax dispatch.
        await withColumns(db.schema.createTable('alert_deliveries'), [
          ['id', 'text', primaryKey],
          ['alert_id', 'text', notNull],
          ['event_key', 'text', notNull],
          ['target_id', 'text', notNull],
          ['notice', 'text', notNull],
          ['state', 'text', notNull],
          ['attempts', 'integer', zeroByDefault],
          ['next_attempt_at', 'bigint', notNull],
          ['lease_owner', 'text', nullable],
          ['lease_until', 'bigint', nullable],
          ['last_status', 'integer', nullable],
          ['last_error', 'text', nullable],
          ['created_at', 'bigint', notNull],
          ['finished_at', 'bigint', nullable],
        ]).execute();
        await db.schema.createIndex('alert_deliveries_once').unique().on('alert_deliveries').columns(['alert_id', 'event_key', 'target_id']).execute();
        await db.schema.createIndex('alert_deliveries_due').on('alert_deliveries').columns(['state', 'next_attempt_at']).execute();
      },
    },
    '0003_alert_targets_are_plugins': {
      async up(db: Kysely<any>) {
        // Pending deliveries keep their place in the outbox and go to the URL's instance; past ones keep their history under its id.
        const { storedAs, instanceOf } = MIGRATION_0003;
        await db
          .updateTable('alert_deliveries')
          .set({ target_id: sql`${sql.lit(`plugin:${instanceOf}-`)} || substr(target_id, ${sql.lit(storedAs.length + 1)})` })
          .where('target_id', 'like', `${storedAs}%`)
          .execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
