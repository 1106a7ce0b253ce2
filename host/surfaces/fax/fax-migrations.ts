import type { Kysely } from 'kysely';
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
        await db.schema
          .createTable('fax_jobs')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('to_number', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('error', 'text')
          .addColumn('pages', 'integer')
          .addColumn('backend', 'text', (c) => c.notNull())
          .addColumn('provider_sid', 'text')
          .addColumn('pdf_key', 'text', (c) => c.notNull())
          .addColumn('source_type', 'text', (c) => c.notNull())
          .addColumn('size_bytes', 'integer', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('dispatch_state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
          .addColumn('lease_owner', 'text')
          .addColumn('lease_until', 'bigint')
          .addColumn('sent_at', 'bigint')
          .addColumn('last_checked_at', 'bigint')
          .addColumn('finished_at', 'text')
          .execute();
        await db.schema.createIndex('fax_jobs_dispatch').on('fax_jobs').columns(['dispatch_state', 'next_attempt_at']).execute();
        await db.schema.createIndex('fax_jobs_created').on('fax_jobs').columns(['created_at', 'id']).execute();
        await db.schema.createTable('host_kv').addColumn('key', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
      },
    },
    '0002_inbound_faxes': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await db.schema
          .createTable('inbound_faxes')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('provider', 'text', (c) => c.notNull())
          .addColumn('provider_id', 'text', (c) => c.notNull())
          .addColumn('from_number', 'text')
          .addColumn('to_number', 'text')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('pages', 'integer')
          .addColumn('pdf_key', 'text')
          .addColumn('received_at', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
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
        await db.schema
          .createTable('fax_idempotency_keys')
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('job_id', 'text', (c) => c.notNull())
          .addColumn('document_sha256', 'text', (c) => c.notNull())
          .addColumn('to_number', 'text', (c) => c.notNull())
          .addColumn('options_sha256', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('fax_idempotency_keys_pk', ['scope', 'key'])
          .execute();
        await db.schema.createIndex('fax_idempotency_expiry').on('fax_idempotency_keys').column('expires_at').execute();
        // Every send of a job: its outcome, and whether the line (busy, no answer) asked for a redial.
        await db.schema
          .createTable('fax_job_attempts')
          .addColumn('job_id', 'text', (c) => c.notNull())
          .addColumn('attempt', 'integer', (c) => c.notNull())
          .addColumn('started_at', 'text', (c) => c.notNull())
          .addColumn('ended_at', 'text')
          .addColumn('outcome', 'text')
          .addColumn('line_failure', 'text')
          .addColumn('error', 'text')
          .addColumn('provider_sid', 'text')
          .addPrimaryKeyConstraint('fax_job_attempts_pk', ['job_id', 'attempt'])
          .execute();
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
        await db.schema
          .createTable('fax_approvals')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('caller', 'text', (c) => c.notNull())
          .addColumn('to_number', 'text', (c) => c.notNull())
          .addColumn('document_sha256', 'text', (c) => c.notNull())
          .addColumn('document_key', 'text', (c) => c.notNull())
          .addColumn('size_bytes', 'bigint', (c) => c.notNull())
          .addColumn('pages', 'integer', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('claimed_until', 'bigint')
          .addColumn('job_id', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('fax_approvals_expiry').on('fax_approvals').column('expires_at').execute();
      },
    },
    '0007_mailboxes': {
      async up(db: Kysely<any>) {
        // Additive only: an instance of the previous version ignores the column and the table.
        await db.schema
          .createTable('mailboxes')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('description', 'text')
          .addColumn('numbers', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.alterTable('inbound_faxes').addColumn('mailbox', 'text').execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
