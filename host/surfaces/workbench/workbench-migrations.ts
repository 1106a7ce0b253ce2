import type { Kysely } from 'kysely';
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
        await db.schema
          .createTable('lab_runs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('request', 'text', (c) => c.notNull())
          .addColumn('result', 'text')
          .addColumn('error_outcome', 'text')
          .addColumn('error_detail', 'text')
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('finished_at', 'text')
          .execute();
      },
    },
    '0002_alerts': {
      replaces: '0007_alerts',
      async up(db: Kysely<any>) {
        // One row per alert instance (type + labels): fired once, repeated, resolved once.
        await db.schema
          .createTable('alerts_active')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('type', 'text', (c) => c.notNull())
          .addColumn('severity', 'text', (c) => c.notNull())
          .addColumn('labels', 'text', (c) => c.notNull())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('context', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('fired_at', 'bigint', (c) => c.notNull())
          .addColumn('resolved_at', 'bigint')
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
        // The outbox: one row per notice and target, claimed with a lease like fax dispatch.
        await db.schema
          .createTable('alert_deliveries')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('alert_id', 'text', (c) => c.notNull())
          .addColumn('event_key', 'text', (c) => c.notNull())
          .addColumn('target_id', 'text', (c) => c.notNull())
          .addColumn('notice', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('last_status', 'integer')
          .addColumn('last_error', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('finished_at', 'bigint')
          .execute();
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
