import type { Kysely } from 'kysely';
import { columns, withColumns } from '../../platform/db/table-columns.js';
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
        await withColumns(db.schema.createTable('lab_runs'), columns(`
          id text primary key, state text not null, request text not null, result text, error_outcome text,
          error_detail text, attempts integer not null default 0, created_at text not null, updated_at text not null,
          finished_at text
        `)).execute();
      },
    },
    '0002_alerts': {
      replaces: '0007_alerts',
      async up(db: Kysely<any>) {
        // One row per alert instance (type + labels): fired once, repeated, resolved once.
        await withColumns(db.schema.createTable('alerts_active'), columns(`
          id text primary key, type text not null, severity text not null, labels text not null, title text not null,
          context text not null, status text not null, fired_at bigint not null, resolved_at bigint,
          updated_at bigint not null
        `)).execute();
        // The outbox: one row per notice and target, claimed with a lease like fax dispatch.
        await withColumns(db.schema.createTable('alert_deliveries'), columns(`
          id text primary key, alert_id text not null, event_key text not null, target_id text not null,
          notice text not null, state text not null, attempts integer not null default 0,
          next_attempt_at bigint not null, lease_owner text, lease_until bigint, last_status integer,
          last_error text, created_at bigint not null, finished_at bigint
        `)).execute();
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
