import type { Kysely } from 'kysely';
import { notNull, nullable, primaryKey, withColumns, zeroByDefault } from './table-columns.js';
import type { DeclaredMigration, OwnedMigrations } from './migrations.js';

/** The platform's tables: API keys, the audit log, shared rate limits, cluster leases, the shared configuration and run accounting. */
export const PLATFORM_MIGRATIONS: OwnedMigrations = {
  owner: 'platform',
  migrations: {
    '0001_api_keys_audit': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('api_keys'), [
          ['key_id', 'text', primaryKey],
          ['name', 'text', notNull],
          ['owner', 'text', nullable],
          ['scopes', 'text', notNull],
          ['secret_hash', 'text', notNull],
          ['created_at', 'text', notNull],
          ['expires_at', 'text', nullable],
          ['revoked_at', 'text', nullable],
          ['last_used_at', 'text', nullable],
          ['rate_limit_rpm', 'integer', nullable],
        ]).execute();
        // SQLite's INTEGER PRIMARY KEY is its rowid alias; PostgreSQL needs an identity column.
        const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
        await withColumns(db.schema.createTable('audit_events'), [
          ['id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement())],
          ['ts', 'text', notNull],
          ['event', 'text', notNull],
          ['record', 'text', notNull],
        ]).execute();
      },
    },
    '0002_audit_index_rate_limits': {
      replaces: '0003_auth_inbound_cleanup',
      async up(db: Kysely<any>) {
        await db.schema.createIndex('audit_events_event').on('audit_events').columns(['event', 'id']).execute();
        if (db.getExecutor().adapter.constructor.name === 'PostgresAdapter') {
          // Shared rate-limit counters, in the layout rate-limiter-flexible's RateLimiterPostgres uses.
          await withColumns(db.schema.createTable('rate_limits'), [
            ['key', 'varchar(255)', primaryKey],
            ['points', 'integer', zeroByDefault],
            ['expire', 'bigint', nullable],
          ]).execute();
        }
      },
    },
    '0003_cluster_work': {
      replaces: '0012_cluster_work',
      async up(db: Kysely<any>) {
        // Additive only (new tables): an instance of the previous version runs on beside it.
        await withColumns(db.schema.createTable('cluster_leases'), [
          ['name', 'text', primaryKey],
          ['owner', 'text', notNull],
          ['lease_until', 'bigint', notNull],
        ]).execute();
        await withColumns(db.schema.createTable('shared_config'), [
          ['id', 'integer', primaryKey],
          ['version', 'integer', notNull],
          ['body', 'text', notNull],
          ['updated_at', 'bigint', notNull],
        ]).execute();
      },
    },
    '0004_run_accounting': {
      replaces: '0008_run_accounting',
      async up(db: Kysely<any>) {
        // Run accounting (host/platform/llm/accounting): one record per run, kept when the corpus
        // or its index is deleted, so costs stay readable afterwards.
        await withColumns(db.schema.createTable('run_accounts'), [
          ['run_id', 'text', primaryKey],
          ['corpus_id', 'text', notNull],
          ['run_kind', 'text', notNull],
          ['state', 'text', notNull],
          ['lanes', 'text', notNull],
          ['not_applicable', 'text', notNull],
          ['coverage_reasons', 'text', notNull],
          ['estimate', 'text', notNull],
          ['census_closed', 'integer', zeroByDefault],
          ['costs', 'text', nullable],
          ['result', 'text', nullable],
          ['error', 'text', nullable],
          ['started_at', 'text', notNull],
          ['finished_at', 'text', nullable],
        ]).execute();
        await db.schema.createIndex('run_accounts_corpus').on('run_accounts').columns(['corpus_id', 'run_kind', 'started_at']).execute();
        // The durable request census: one row per native dispatch, written before the dispatch.
        await withColumns(db.schema.createTable('run_requests'), [
          ['id', 'text', primaryKey],
          ['run_id', 'text', notNull],
          ['lane', 'text', notNull],
          ['model', 'text', notNull],
          ['state', 'text', notNull],
          ['http_status', 'integer', nullable],
          ['input_tokens', 'integer', nullable],
          ['output_tokens', 'integer', nullable],
          ['admitted_at', 'bigint', notNull],
          ['settled_at', 'bigint', nullable],
        ]).execute();
        await db.schema.createIndex('run_requests_run').on('run_requests').columns(['run_id', 'lane']).execute();
        // Corpora whose index was deleted: current-state reads answer 404 until indexed again.
        await withColumns(db.schema.createTable('corpus_deletions'), [
          ['corpus_id', 'text', primaryKey],
          ['deleted_at', 'text', notNull],
        ]).execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
