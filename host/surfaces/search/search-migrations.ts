import type { Kysely } from 'kysely';
import { columns, withColumns } from '../../platform/db/table-columns.js';
import type { DeclaredMigration, OwnedMigrations } from '../../platform/db/migrations.js';
import { sql } from '../../platform/db/kysely-runtime.js';

/** The code-search surface's tables: index runs, evaluation canaries, evaluation jobs and git repositories. */
export const SEARCH_MIGRATIONS: OwnedMigrations = {
  owner: 'search',
  migrations: {
    '0001_index_runs': {
      replaces: '0005_index_runs',
      async up(db: Kysely<any>) {
        await withColumns(db.schema.createTable('index_runs'), columns(`
          id text primary key, repo text not null, kind text not null, state text not null,
          enrich integer not null default 0, files_seen integer not null default 0,
          files_changed integer not null default 0, files_removed integer not null default 0,
          files_skipped integer not null default 0, chunks integer not null default 0,
          vectors integer not null default 0, error text, started_at text not null, finished_at text,
          heartbeat_at bigint not null
        `)).execute();
        await db.schema.createIndex('index_runs_repo_started').on('index_runs').columns(['repo', 'started_at']).execute();
        // One running run per repository, enforced by the database even across gateway instances.
        await sql`create unique index index_runs_one_running on index_runs (repo) where state = 'running'`.execute(db);
      },
    },
    '0002_eval_canaries': {
      replaces: '0009_eval_canaries',
      async up(db: Kysely<any>) {
        // Named evaluation runs (a canary, a model or reranker version) and the baseline each is judged against.
        await withColumns(db.schema.createTable('eval_runs'), columns(`
          id text primary key, name text not null, summary text not null, baseline integer not null default 0,
          created_at bigint not null
        `)).execute();
        await db.schema.createIndex('eval_runs_name').on('eval_runs').columns(['name', 'created_at']).execute();
      },
    },
    '0003_evaluation_jobs': {
      replaces: '0011_evaluation_jobs',
      async up(db: Kysely<any>) {
        // Golden-set evaluations as background runs with progress, like index runs: a restart
        // mid-run shows it interrupted. (eval_runs above holds only the named summaries.)
        await withColumns(db.schema.createTable('evaluation_jobs'), columns(`
          id text primary key, state text not null, questions integer not null, done integer not null default 0,
          name text, baseline integer not null default 0, report text, error text, started_at text not null,
          finished_at text, heartbeat_at bigint not null
        `)).execute();
        await db.schema.createIndex('evaluation_jobs_started').on('evaluation_jobs').columns(['started_at', 'id']).execute();
      },
    },
    '0004_git_repositories': {
      async up(db: Kysely<any>) {
        // The git repositories added over the API, shared by a cluster (before: DATA_DIR/git-repositories.json).
        // `state` is the last fetch by any instance; what each instance indexed stays in its DATA_DIR.
        await withColumns(db.schema.createTable('git_repositories'), columns(`
          name text primary key, url text not null, revs text not null, credential_env text, credential text,
          state text not null, created_at text not null
        `)).execute();
      },
    },
  } satisfies Record<string, DeclaredMigration>,
};
