import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { sql } from './kysely-runtime.js';

/**
 * History, not configuration: migration 0004 renamed the PBX hook's rows to the id the plugin
 * that owns the hook had when it was written. A migration that ran must keep its meaning, so
 * these values are frozen here and never read from the manifests.
 */
const MIGRATION_0004 = { storedAs: 'pbx', pluginId: 'sip' } as const;

/**
 * History too: migration 0014 moved the outbox rows of WEBHOOK_TARGETS URLs, stored for target
 * `webhook:<hash>`, to the instance of the default alert sink that delivers to that URL since,
 * target `plugin:<sink>-<hash>` (the same hash), with the sink the package had then.
 */
const MIGRATION_0014 = { storedAs: 'webhook:', instanceOf: 'alert-webhook' } as const;

/** Migrations in code, run at start by every instance (Kysely's migrator locks). */
const migrations: Record<string, Migration> = {
  '0001_fax_jobs': {
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
  '0002_inbound_keys_audit': {
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
  '0003_auth_inbound_cleanup': {
    async up(db: Kysely<any>) {
      // Set when cleanup removed a finished job's artifacts; the row stays for history.
      await db.schema.alterTable('fax_jobs').addColumn('artifacts_removed_at', 'text').execute();
      await db.schema.alterTable('inbound_faxes').addColumn('source_type', 'text').execute();
      await db.schema.alterTable('inbound_faxes').addColumn('size_bytes', 'integer').execute();
      await db.schema.createIndex('inbound_created').on('inbound_faxes').columns(['created_at', 'id']).execute();
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
  '0004_inbound_provider_is_plugin_id': {
    async up(db: Kysely<any>) {
      // Inbound faxes are keyed by the id of the plugin that received them; the PBX hook's faxes
      // were stored as "pbx" before the sip plugin owned that hook. Renamed so replays stay idempotent.
      await db.updateTable('inbound_faxes').set({ provider: MIGRATION_0004.pluginId }).where('provider', '=', MIGRATION_0004.storedAs).execute();
    },
  },
  '0005_index_runs': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('index_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('enrich', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('files_seen', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('files_changed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('files_removed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('files_skipped', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('chunks', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('vectors', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('index_runs_repo_started').on('index_runs').columns(['repo', 'started_at']).execute();
      // One running run per repository, enforced by the database even across gateway instances.
      await sql`create unique index index_runs_one_running on index_runs (repo) where state = 'running'`.execute(db);
    },
  },
  '0006_lab_runs': {
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
  '0007_alerts': {
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
  '0008_run_accounting': {
    async up(db: Kysely<any>) {
      // One accounting record per run (index, schema proposal, search, answer): kept when the
      // corpus or its index is deleted, so costs stay readable afterwards.
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
  '0009_eval_canaries': {
    async up(db: Kysely<any>) {
      // Named evaluation runs (a canary, a model or reranker version) and the baseline each is judged against.
      await db.schema
        .createTable('eval_runs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('summary', 'text', (c) => c.notNull())
        .addColumn('baseline', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('eval_runs_name').on('eval_runs').columns(['name', 'created_at']).execute();
    },
  },
  '0010_fax_idempotency_attempts': {
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
  '0011_evaluation_jobs': {
    async up(db: Kysely<any>) {
      // Golden-set evaluations as background runs with progress, like index runs: a restart
      // mid-run shows it interrupted. (eval_runs above holds only the named summaries.)
      await db.schema
        .createTable('evaluation_jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('questions', 'integer', (c) => c.notNull())
        .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name', 'text')
        .addColumn('baseline', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('report', 'text')
        .addColumn('error', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('evaluation_jobs_started').on('evaluation_jobs').columns(['started_at', 'id']).execute();
    },
  },
  '0012_cluster_work': {
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
  '0013_fax_approvals': {
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
  '0014_alert_targets_are_plugins': {
    async up(db: Kysely<any>) {
      // Pending deliveries keep their place in the outbox and go to the URL's instance; past ones keep their history under its id.
      const { storedAs, instanceOf } = MIGRATION_0014;
      await db
        .updateTable('alert_deliveries')
        .set({ target_id: sql`${sql.lit(`plugin:${instanceOf}-`)} || substr(target_id, ${sql.lit(storedAs.length + 1)})` })
        .where('target_id', 'like', `${storedAs}%`)
        .execute();
    },
  },
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
