import type { Kysely } from 'kysely';
import { columns, withColumns } from './table-columns.js';
import type { DeclaredMigration, OwnedMigrations } from './migrations.js';

/** The platform's tables: API keys, the audit log, shared rate limits, cluster leases, the shared configuration and run accounting. */
export const PLATFORM_MIGRATIONS: OwnedMigrations = {
  owner: 'platform',
  migrations: {
    '0001_api_keys_audit': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('api_keys'), columns(`
          key_id text primary key, name text not null, owner text, scopes text not null, secret_hash text not null,
          created_at text not null, expires_at text, revoked_at text, last_used_at text, rate_limit_rpm integer
        `)).execute();
        // SQLite's INTEGER PRIMARY KEY is its rowid alias; PostgreSQL needs an identity column.
        const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
        await withColumns(db.schema.createTable('audit_events'), [
          ['id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())],
          ...columns('ts text not null, event text not null, record text not null'),
        ]).execute();
      },
    },
    '0002_audit_index_rate_limits': {
      replaces: '0003_auth_inbound_cleanup',
      async up(db: Kysely<any>) {
        await db.schema.createIndex('audit_events_event').on('audit_events').columns(['event', 'id']).execute();
        if (db.getExecutor().adapter.constructor.name === 'PostgresAdapter') {
          // Shared rate-limit counters, in the layout rate-limiter-flexible's RateLimiterPostgres uses.
          await withColumns(db.schema.createTable('rate_limits'), columns('key varchar(255) primary key, points integer not null default 0, expire bigint')).execute();
        }
      },
    },
    '0003_cluster_work': {
      replaces: '0012_cluster_work',
      async up(db: Kysely<any>) {
        // Additive only (new tables): an instance of the previous version runs on beside it.
        await withColumns(db.schema.createTable('cluster_leases'), columns('name text primary key, owner text not null, lease_until bigint not null')).execute();
        await withColumns(db.schema.createTable('shared_config'), columns('id integer primary key, version integer not null, body text not null, updated_at bigint not null')).execute();
      },
    },
    '0004_run_accounting': {
      replaces: '0008_run_accounting',
      async up(db: Kysely<any>) {
        // Run accounting (host/platform/llm/accounting): one record per run, kept when the corpus
        // or its index is deleted, so costs stay readable afterwards.
        await withColumns(db.schema.createTable('run_accounts'), columns(`
          run_id text primary key, corpus_id text not null, run_kind text not null, state text not null,
          lanes text not null, not_applicable text not null, coverage_reasons text not null, estimate text not null,
          census_closed integer not null default 0, costs text, result text, error text, started_at text not null,
          finished_at text
        `)).execute();
        await db.schema.createIndex('run_accounts_corpus').on('run_accounts').columns(['corpus_id', 'run_kind', 'started_at']).execute();
        // The durable request census: one row per native dispatch, written before the dispatch.
        await withColumns(db.schema.createTable('run_requests'), columns(`
          id text primary key, run_id text not null, lane text not null, model text not null, state text not null,
          http_status integer, input_tokens integer, output_tokens integer, admitted_at bigint not null,
          settled_at bigint
        `)).execute();
        await db.schema.createIndex('run_requests_run').on('run_requests').columns(['run_id', 'lane']).execute();
        // Corpora whose index was deleted: current-state reads answer 404 until indexed again.
        await withColumns(db.schema.createTable('corpus_deletions'), columns('corpus_id text primary key, deleted_at text not null')).execute();
      },
    },
    '0005_plugin_packages': {
      async up(db: Kysely<any>) {
        // Installed plugin packages (the bytes are in DATA_DIR/plugin-packages) and each plugin's current version.
        await withColumns(db.schema.createTable('plugin_packages'), columns(`
          id text primary key, plugin_id text not null, version text not null, digest text not null, integrity text not null,
          signer text, size integer not null, installed_by text not null, installed_at text not null
        `)).execute();
        await db.schema.createIndex('plugin_packages_plugin').on('plugin_packages').columns(['plugin_id', 'installed_at']).execute();
        await withColumns(db.schema.createTable('plugin_current'), columns('plugin_id text primary key, version text not null, pinned integer not null default 0, updated_by text not null, updated_at text not null')).execute();
      },
    },
    '0006_api_key_limits': {
      async up(db: Kysely<any>) {
        // Additive: an older instance ignores the column (and its keys' limits).
        await db.schema.alterTable('api_keys').addColumn('limits', 'text').execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
