import type { Kysely } from 'kysely';
import type { DeclaredMigration, OwnedMigrations } from './migrations.js';

/** The platform's tables: API keys, the audit log, shared rate limits, cluster leases, the shared configuration and run accounting. */
export const PLATFORM_MIGRATIONS: OwnedMigrations = {
  owner: 'platform',
  migrations: {
    '0001_api_keys_audit': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('api_keys')
          .addColumn('key_id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('owner', 'text')
          .addColumn('scopes', 'text', (c) => c.notNull())
          .addColumn('secret_hash', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('expires_at', 'text')
          .addColumn('revoked_at', 'text')
          .addColumn('last_used_at', 'text')
          .addColumn('rate_limit_rpm', 'integer')
          .execute();
        // SQLite's INTEGER PRIMARY KEY is its rowid alias; PostgreSQL needs an identity column.
        const postgres = db.getExecutor().adapter.constructor.name === 'PostgresAdapter';
        await db.schema
          .createTable('audit_events')
          .addColumn('id', postgres ? 'bigint' : 'integer', (c) => (postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement()))
          .addColumn('ts', 'text', (c) => c.notNull())
          .addColumn('event', 'text', (c) => c.notNull())
          .addColumn('record', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '0002_audit_index_rate_limits': {
      replaces: '0003_auth_inbound_cleanup',
      async up(db: Kysely<any>) {
        await db.schema.createIndex('audit_events_event').on('audit_events').columns(['event', 'id']).execute();
        if (db.getExecutor().adapter.constructor.name === 'PostgresAdapter') {
          // Shared rate-limit counters, in the layout rate-limiter-flexible's RateLimiterPostgres uses.
          await db.schema
            .createTable('rate_limits')
            .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
            .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
            .addColumn('expire', 'bigint')
            .execute();
        }
      },
    },
    '0003_cluster_work': {
      replaces: '0012_cluster_work',
      async up(db: Kysely<any>) {
        // Additive only (new tables): an instance of the previous version runs on beside it.
        await db.schema
          .createTable('cluster_leases')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('owner', 'text', (c) => c.notNull())
          .addColumn('lease_until', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('shared_config')
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .execute();
      },
    },
    '0004_run_accounting': {
      replaces: '0008_run_accounting',
      async up(db: Kysely<any>) {
        // Run accounting (host/platform/llm/accounting): one record per run, kept when the corpus
        // or its index is deleted, so costs stay readable afterwards.
        await db.schema
          .createTable('run_accounts')
          .addColumn('run_id', 'text', (c) => c.primaryKey())
          .addColumn('corpus_id', 'text', (c) => c.notNull())
          .addColumn('run_kind', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('lanes', 'text', (c) => c.notNull())
          .addColumn('not_applicable', 'text', (c) => c.notNull())
          .addColumn('coverage_reasons', 'text', (c) => c.notNull())
          .addColumn('estimate', 'text', (c) => c.notNull())
          .addColumn('census_closed', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('costs', 'text')
          .addColumn('result', 'text')
          .addColumn('error', 'text')
          .addColumn('started_at', 'text', (c) => c.notNull())
          .addColumn('finished_at', 'text')
          .execute();
        await db.schema.createIndex('run_accounts_corpus').on('run_accounts').columns(['corpus_id', 'run_kind', 'started_at']).execute();
        // The durable request census: one row per native dispatch, written before the dispatch.
        await db.schema
          .createTable('run_requests')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('run_id', 'text', (c) => c.notNull())
          .addColumn('lane', 'text', (c) => c.notNull())
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('http_status', 'integer')
          .addColumn('input_tokens', 'integer')
          .addColumn('output_tokens', 'integer')
          .addColumn('admitted_at', 'bigint', (c) => c.notNull())
          .addColumn('settled_at', 'bigint')
          .execute();
        await db.schema.createIndex('run_requests_run').on('run_requests').columns(['run_id', 'lane']).execute();
        // Corpora whose index was deleted: current-state reads answer 404 until indexed again.
        await db.schema
          .createTable('corpus_deletions')
          .addColumn('corpus_id', 'text', (c) => c.primaryKey())
          .addColumn('deleted_at', 'text', (c) => c.notNull())
          .execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
