import type { Kysely } from 'kysely';
import { notNull, nullable, primaryKey, withColumns, zeroByDefault } from '../../platform/db/table-columns.js';
import type { DeclaredMigration, OwnedMigrations } from '../../platform/db/migrations.js';

/**
 * History, not configuration: migration 0004 renamed the PBX hook's rows to the id the plugin
 * that owns the hook had when it was written. A migration that ran must keep its meaning, so
 * these values are frozen here and never read from the manifests.
 */
const MIGRATION_0004 = { storedAs: 'pbx', pluginId: 'sip' } as const;

/** The fax surface's tables: jobs and their attempts, idempotency keys, approvals, inbound faxes, the document-token key. */
export const FAX_MIGRATIONS: OwnedMigrations = {
  owner: 'fax',
  migrations: {
    '0001_fax_jobs': {
      replaces: '0001_fax_jobs',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('fax_jobs'), [
          ['id', 'text', primaryKey],
          ['to_number', 'text', notNull],
          ['status', 'text', notNull],
          ['error', 'text', nullable],
          ['pages', 'integer', nullable],
          ['backend', 'text', notNull],
          ['provider_sid', 'text', nullable],
          ['pdf_key', 'text', notNull],
          ['source_type', 'text', notNull],
          ['size_bytes', 'integer', notNull],
          ['created_at', 'text', notNull],
          ['updated_at', 'text', notNull],
          ['dispatch_state', 'text', notNull],
          ['attempts', 'integer', zeroByDefault],
          ['next_attempt_at', 'bigint', notNull],
          ['lease_owner', 'text', nullable],
          ['lease_until', 'bigint', nullable],
          ['sent_at', 'bigint', nullable],
          ['last_checked_at', 'bigint', nullable],
          ['finished_at', 'text', nullable],
        ]).execute();
        await db.schema.createIndex('fax_jobs_dispatch').on('fax_jobs').columns(['dispatch_state', 'next_attempt_at']).execute();
        await db.schema.createIndex('fax_jobs_created').on('fax_jobs').columns(['created_at', 'id']).execute();
        await db.schema.createTable('host_kv').addColumn('key', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
      },
    },
    '0002_inbound_faxes': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('inbound_faxes'), [
          ['id', 'text', primaryKey],
          ['provider', 'text', notNull],
          ['provider_id', 'text', notNull],
          ['from_number', 'text', nullable],
          ['to_number', 'text', nullable],
          ['status', 'text', notNull],
          ['pages', 'integer', nullable],
          ['pdf_key', 'text', nullable],
          ['received_at', 'text', notNull],
          ['created_at', 'bigint', notNull],
        ]).execute();
        await db.schema.createIndex('inbound_provider_id').unique().on('inbound_faxes').columns(['provider', 'provider_id']).execute();
      },
    },
    '0003_artifacts_removed_inbound_source': {
      replaces: '0003_auth_inbound_cleanup',
      async up(db: Kysely<any>) {
        // Set when cleanup removed a finished job's artifacts; the row stays for history.
        await db.schema.alterTable('fax_jobs').addColumn('artifacts_removed_at', 'text').execute();
        await db.schema.alterTable('inbound_faxes').addColumn('source_type', 'text').execute();
        await db.schema.alterTable('inbound_faxes').addColumn('size_bytes', 'integer').execute();
        await db.schema.createIndex('inbound_created').on('inbound_faxes').columns(['created_at', 'id']).execute();
      },
    },
    '0004_inbound_provider_is_plugin_id': {
      replaces: '0004_inbound_provider_is_plugin_id',
      async up(db: Kysely<any>) {
        // Inbound faxes are keyed by the id of the plugin that received them; the PBX hook's faxes
        // were stored as "pbx" before the sip plugin owned that hook. Renamed so replays stay idempotent.
        await db.updateTable('inbound_faxes').set({ provider: MIGRATION_0004.pluginId }).where('provider', '=', MIGRATION_0004.storedAs).execute();
      },
    },
    '0005_fax_idempotency_attempts': {
      replaces: '0010_fax_idempotency_attempts',
      async up(db: Kysely<any>) {
        // Idempotency-Key of POST /fax: the primary key (scope, key) makes concurrent duplicates one job.
        await withColumns(db.schema.createTable('fax_idempotency_keys'), [
          ['scope', 'text', notNull],
          ['key', 'text', notNull],
          ['job_id', 'text', notNull],
          ['document_sha256', 'text', notNull],
          ['to_number', 'text', notNull],
          ['options_sha256', 'text', notNull],
          ['created_at', 'bigint', notNull],
          ['expires_at', 'bigint', notNull],
        ]).addPrimaryKeyConstraint('fax_idempotency_keys_pk', ['scope', 'key']).execute();
        await db.schema.createIndex('fax_idempotency_expiry').on('fax_idempotency_keys').column('expires_at').execute();
        // Every send of a job: its outcome, and whether the line (busy, no answer) asked for a redial.
        await withColumns(db.schema.createTable('fax_job_attempts'), [
          ['job_id', 'text', notNull],
          ['attempt', 'integer', notNull],
          ['started_at', 'text', notNull],
          ['ended_at', 'text', nullable],
          ['outcome', 'text', nullable],
          ['line_failure', 'text', nullable],
          ['error', 'text', nullable],
          ['provider_sid', 'text', nullable],
        ]).addPrimaryKeyConstraint('fax_job_attempts_pk', ['job_id', 'attempt']).execute();
        await db.schema.alterTable('fax_jobs').addColumn('retry_max_attempts', 'integer').execute();
        await db.schema.alterTable('fax_jobs').addColumn('retry_delay_seconds', 'integer').execute();
        await db.schema.alterTable('fax_jobs').addColumn('document_sha256', 'text').execute();
        await db.schema.alterTable('fax_jobs').addColumn('cover_page', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        },
    },
    '0006_fax_approvals': {
      replaces: '0013_fax_approvals',
      async up(db: Kysely<any>) {
        // Additive only (a new table): an instance of the previous version keeps its approvals in memory beside it.
        await withColumns(db.schema.createTable('fax_approvals'), [
          ['id', 'text', primaryKey],
          ['caller', 'text', notNull],
          ['to_number', 'text', notNull],
          ['document_sha256', 'text', notNull],
          ['document_key', 'text', notNull],
          ['size_bytes', 'bigint', notNull],
          ['pages', 'integer', notNull],
          ['state', 'text', notNull],
          ['claimed_until', 'bigint', nullable],
          ['job_id', 'text', nullable],
          ['created_at', 'bigint', notNull],
          ['expires_at', 'bigint', notNull],
        ]).execute();
        await db.schema.createIndex('fax_approvals_expiry').on('fax_approvals').column('expires_at').execute();
      },
    },
    '0007_mailboxes': {
      async up(db: Kysely<any>) {
        // Additive only: an instance of the previous version ignores the column and the table.
        await withColumns(db.schema.createTable('mailboxes'), [
          ['name', 'text', primaryKey],
          ['description', 'text', nullable],
          ['numbers', 'text', notNull],
          ['created_at', 'text', notNull],
          ['updated_at', 'text', notNull],
        ]).execute();
        await db.schema.alterTable('inbound_faxes').addColumn('mailbox', 'text').execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
