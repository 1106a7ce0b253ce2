import type { Kysely } from 'kysely';
import { columns, withColumns } from '../../platform/db/table-columns.js';
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
        await withColumns(db.schema.createTable('fax_jobs'), columns(`
          id text primary key, to_number text not null, status text not null, error text, pages integer,
          backend text not null, provider_sid text, pdf_key text not null, source_type text not null,
          size_bytes integer not null, created_at text not null, updated_at text not null,
          dispatch_state text not null, attempts integer not null default 0, next_attempt_at bigint not null,
          lease_owner text, lease_until bigint, sent_at bigint, last_checked_at bigint, finished_at text
        `)).execute();
        await db.schema.createIndex('fax_jobs_dispatch').on('fax_jobs').columns(['dispatch_state', 'next_attempt_at']).execute();
        await db.schema.createIndex('fax_jobs_created').on('fax_jobs').columns(['created_at', 'id']).execute();
        await db.schema.createTable('host_kv').addColumn('key', 'text', (c) => c.primaryKey()).addColumn('value', 'text', (c) => c.notNull()).execute();
      },
    },
    '0002_inbound_faxes': {
      replaces: '0002_inbound_keys_audit',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('inbound_faxes'), columns(`
          id text primary key, provider text not null, provider_id text not null, from_number text, to_number text,
          status text not null, pages integer, pdf_key text, received_at text not null, created_at bigint not null
        `)).execute();
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
        await withColumns(db.schema.createTable('fax_idempotency_keys'), columns(`
          scope text not null, key text not null, job_id text not null, document_sha256 text not null,
          to_number text not null, options_sha256 text not null, created_at bigint not null,
          expires_at bigint not null
        `)).addPrimaryKeyConstraint('fax_idempotency_keys_pk', ['scope', 'key']).execute();
        await db.schema.createIndex('fax_idempotency_expiry').on('fax_idempotency_keys').column('expires_at').execute();
        // Every send of a job: its outcome, and whether the line (busy, no answer) asked for a redial.
        await withColumns(db.schema.createTable('fax_job_attempts'), columns(`
          job_id text not null, attempt integer not null, started_at text not null, ended_at text, outcome text,
          line_failure text, error text, provider_sid text
        `)).addPrimaryKeyConstraint('fax_job_attempts_pk', ['job_id', 'attempt']).execute();
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
        await withColumns(db.schema.createTable('fax_approvals'), columns(`
          id text primary key, caller text not null, to_number text not null, document_sha256 text not null,
          document_key text not null, size_bytes bigint not null, pages integer not null, state text not null,
          claimed_until bigint, job_id text, created_at bigint not null, expires_at bigint not null
        `)).execute();
        await db.schema.createIndex('fax_approvals_expiry').on('fax_approvals').column('expires_at').execute();
      },
    },
    '0007_mailboxes': {
      async up(db: Kysely<any>) {
        // Additive only: an instance of the previous version ignores the column and the table.
        await withColumns(db.schema.createTable('mailboxes'), columns(`
          name text primary key, description text, numbers text not null, created_at text not null,
          updated_at text not null
        `)).execute();
        await db.schema.alterTable('inbound_faxes').addColumn('mailbox', 'text').execute();
      },
    },
    '0008_status_webhooks': {
      async up(db: Kysely<any>) {
        // Additive only: an instance of the previous version ignores the columns and the tables.
        await db.schema.alterTable('fax_jobs').addColumn('callback_url', 'text').execute();
        await db.schema.alterTable('fax_jobs').addColumn('callback_full_numbers', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('fax_jobs').addColumn('submitted_by', 'text').execute();
        await withColumns(db.schema.createTable('fax_webhook_subscriptions'), columns(`
          id text primary key, owner text not null, scopes text not null, url text not null, events text not null,
          secret text not null, description text, created_at text not null
        `)).execute();
        await withColumns(db.schema.createTable('fax_webhook_deliveries'), columns(`
          id text primary key, event_id text not null, event_type text not null, subject_id text not null,
          destination text not null, owner text not null, url text not null, body text not null, event_at bigint not null,
          state text not null, attempts integer not null default 0, next_attempt_at bigint not null, lease_owner text,
          lease_until bigint, last_status integer, last_error text, created_at bigint not null, finished_at bigint
        `)).addUniqueConstraint('fax_webhook_deliveries_event', ['event_id', 'destination']).execute();
        await db.schema.createIndex('fax_webhook_deliveries_due').on('fax_webhook_deliveries').columns(['state', 'next_attempt_at']).execute();
        await db.schema.createIndex('fax_webhook_deliveries_subject').on('fax_webhook_deliveries').columns(['destination', 'subject_id', 'event_at']).execute();
      },
    },
    '0009_scheduled_and_resent_jobs': {
      async up(db: Kysely<any>) {
        // Additive only: an older instance dispatches by next_attempt_at, which holds send_at already.
        await db.schema.alterTable('fax_jobs').addColumn('send_at', 'text').execute();
        await db.schema.alterTable('fax_jobs').addColumn('resend_of', 'text').execute();
        await db.schema.createIndex('fax_jobs_resend_of').on('fax_jobs').column('resend_of').execute();
      },
    },
    '0010_media_deleted_on_demand': {
      async up(db: Kysely<any>) {
        // Tombstones: the row stays, its media is gone (DELETE /fax/{id}/document, DELETE /inbound/{id}).
        await db.schema.alterTable('fax_jobs').addColumn('document_deleted_at', 'text').execute();
        await db.schema.alterTable('fax_jobs').addColumn('document_deleted_by', 'text').execute();
        await db.schema.alterTable('inbound_faxes').addColumn('deleted_at', 'text').execute();
        await db.schema.alterTable('inbound_faxes').addColumn('deleted_by', 'text').execute();
      },
    },
    '0011_status_event_markers': {
      async up(db: Kysely<any>) {
        // Rows from before are not marked: their events were published (or never will be).
        for (const [table, time] of [['fax_jobs', 'updated_at'], ['inbound_faxes', 'created_at']] as const) {
          await db.schema.alterTable(table).addColumn('event_pending', 'integer', (c) => c.notNull().defaultTo(0)).execute();
          await db.schema.createIndex(`${table}_event_pending`).on(table).columns(['event_pending', time]).execute();
        }
      },
    },
    '0012_inbound_sinks': {
      async up(db: Kysely<any>) {
        // Additive: existing rows are webhook deliveries. An older instance would claim sink rows as webhooks, so configure sinks once every instance runs this version.
        await db.schema.alterTable('fax_webhook_deliveries').addColumn('channel', 'text', (c) => c.notNull().defaultTo('webhook')).execute();
        await db.schema.alterTable('mailboxes').addColumn('sinks', 'text').execute();
      },
    },
    '0013_fax_batches': {
      async up(db: Kysely<any>) {
        // Additive only: an older instance sends a batch's jobs like any other (pdf_key names the shared document).
        await db.schema.alterTable('fax_jobs').addColumn('batch_id', 'text').execute();
        await db.schema.alterTable('fax_jobs').addColumn('batch_index', 'integer').execute();
        await db.schema.createIndex('fax_jobs_batch_id').on('fax_jobs').column('batch_id').execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
