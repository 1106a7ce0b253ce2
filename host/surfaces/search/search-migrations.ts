import type { Kysely } from 'kysely';
import type { DeclaredMigration, OwnedMigrations } from '../../platform/db/migrations.js';
import { sql } from '../../platform/db/kysely-runtime.js';

/** The code-search surface's tables: index runs, evaluation canaries and evaluation jobs. */
export const SEARCH_MIGRATIONS: OwnedMigrations = {
  owner: 'search',
  migrations: {
    '0001_index_runs': {
      replaces: '0005_index_runs',
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
    '0002_eval_canaries': {
      replaces: '0009_eval_canaries',
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
    '0003_evaluation_jobs': {
      replaces: '0011_evaluation_jobs',
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
  } satisfies Record<string, DeclaredMigration>,
};
