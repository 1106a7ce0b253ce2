import { closeSync, openSync } from 'node:fs';
import { ensurePrivateDirSync, PRIVATE_FILE_MODE, restrictFileSync } from '../../../core/config/private-files.js';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from './kysely-runtime.js';
import type { PlatformTables } from './schema.js';
import { adoptReplacedMigrations, mergeMigrations, migrationProviderOf, type OwnedMigrations } from './migrations.js';
import { PLATFORM_MIGRATIONS } from './platform-migrations.js';
import { withStatementCache } from './statement-cache.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  /** The platform's tables; a surface types its own with `db.withTables<...>()`. */
  db: Kysely<PlatformTables>;
  dialect: Dialect;
  /** Where it lives, without credentials: the SQLite file or host:port/db. */
  location: string;
  /** The pg pool behind `db` (PostgreSQL only), for libraries that take a pg client. */
  pool?: pg.Pool;
  /**
   * Migrations the database has that this version does not know (a newer instance of a rolling
   * upgrade ran them). Migrations only add, so this version runs on without migrating.
   */
  schemaAhead: string[];
  close(): Promise<void>;
}

/**
 * The embedded default is a SQLite file under DATA_DIR; DATABASE_URL=postgres://... selects
 * PostgreSQL so several gateway instances share jobs. Migrations run before it is returned.
 */
export async function openDatabase(options: { url?: string | undefined; dataDir: string; poolSize?: number; migrations?: readonly OwnedMigrations[]; onPoolError?: (err: Error) => void }): Promise<OpenedDatabase> {
  const url = options.url?.trim();
  let opened: OpenedDatabase;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    // pg is loaded only when PostgreSQL is selected: the embedded default never needs it.
    const { default: pgModule } = await import('pg');
    // int8 (bigint) columns hold epoch milliseconds, which fit a JS number exactly.
    pgModule.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pgModule.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    // A lost connection (the server restarted, a network cut) is emitted by its client: by the
    // pool while idle, by the client itself while checked out between queries (pg-pool listens only
    // to idle ones). Unheard, either is an uncaught error; the next query meets the outage, if any.
    const lost = (err: Error) => options.onPoolError?.(err);
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
    const db = new Kysely<PlatformTables>({ dialect: new PostgresDialect({ pool }) });
    const parsed = new URL(url);
    opened = { db, dialect: 'postgres', pool, schemaAhead: [], location: `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`, close: () => db.destroy() };
  } else {
    const file = url && url.startsWith('sqlite:') ? url.replace(/^sqlite:(\/\/)?/, '') : path.join(options.dataDir, 'switchboard.sqlite');
    // Jobs hold phone numbers: the database is 0600 in a 0700 directory. SQLite gives its
    // -wal and -shm files the database file's mode, so the file is made before SQLite opens it.
    if (file !== ':memory:') {
      ensurePrivateDirSync(path.dirname(file));
      closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
      for (const f of [file, `${file}-wal`, `${file}-shm`]) restrictFileSync(f);
    }
    const database = new SQLite(file);
    database.pragma('journal_mode = WAL');
    database.pragma('busy_timeout = 5000');
    database.pragma('synchronous = NORMAL');
    const db = new Kysely<PlatformTables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
    opened = { db, dialect: 'sqlite', schemaAhead: [], location: file, close: () => db.destroy() };
  }
  // The platform's tables and every surface's, each owner's migrations in their order.
  const migrations = mergeMigrations([PLATFORM_MIGRATIONS, ...(options.migrations ?? [])]);
  await adoptReplacedMigrations(opened.db, migrations);
  const known = new Set(Object.keys(migrations));
  opened.schemaAhead = (await executedMigrations(opened.db)).filter((name) => !known.has(name));
  // Kysely refuses a database with migrations it does not know; an older instance restarted
  // during a rolling upgrade runs on the newer (additive) schema instead.
  if (opened.schemaAhead.length) return opened;
  // Owners add migrations independently, so one owner's new migration may sort before another's ran.
  const migrator = new Migrator({ db: opened.db, provider: migrationProviderOf(migrations), allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await opened.close();
    throw error instanceof Error ? error : new Error(String(error));
  }
  return opened;
}

/** Names of the migrations run on this database so far (none on a new one). */
async function executedMigrations(db: Kysely<PlatformTables>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return [];
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  return rows.map((r) => r.name);
}

/** A cheap round trip, for readiness. */
export async function pingDatabase(db: Kysely<any>): Promise<void> {
  await sql`select 1`.execute(db);
}
