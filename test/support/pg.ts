import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { openGatewayDatabase, type GatewayDatabase } from './database.js';
import { removeDir, tempDir } from './gateway.js';

/**
 * A fresh database on the PostgreSQL server the test runner started (TEST_DATABASE_URL), so
 * each test file has its own. Fails loudly when the runner did not start one.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set: run the suite with npm test, which starts PostgreSQL');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      // A closed pg.Pool resolves before its sockets are gone; a FORCE drop meanwhile terminates
      // those sessions and their clients raise an unhandled error. Let them leave first (bounded).
      for (let i = 0; i < 100; i++) {
        const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [name]);
        if (rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * Two gateway instances on one fresh PostgreSQL database, each with its own pool and data
 * directory, as two machines of a cluster have. `close` closes both and drops the database.
 */
async function twoInstancesOnPostgres(): Promise<{ a: GatewayDatabase; b: GatewayDatabase; close(): Promise<void> }> {
  const pgdb = await freshPostgresDatabase();
  const dirs = [tempDir(), tempDir()];
  const a = await openGatewayDatabase({ url: pgdb.url, dataDir: dirs[0]! });
  const b = await openGatewayDatabase({ url: pgdb.url, dataDir: dirs[1]! });
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await pgdb.drop();
      dirs.forEach(removeDir);
    },
  };
}

/**
 * The same pair for a whole test file: opened in the suite's `before`, closed in its `after`.
 * Read `a` and `b` inside the tests (they exist from `before` on).
 */
export function twoInstancesForSuite(suite: { before(fn: () => unknown): void; after(fn: () => unknown): void }): { readonly a: GatewayDatabase; readonly b: GatewayDatabase } {
  let pair: Awaited<ReturnType<typeof twoInstancesOnPostgres>> | undefined;
  suite.before(async () => {
    pair = await twoInstancesOnPostgres();
  });
  suite.after(() => pair?.close());
  const opened = () => {
    if (!pair) throw new Error("the PostgreSQL pair opens in the suite's before hook");
    return pair;
  };
  return {
    get a() {
      return opened().a;
    },
    get b() {
      return opened().b;
    },
  };
}

/** A fresh database of each dialect, for a specification run on SQLite and on PostgreSQL alike. */
export const SQLITE_AND_POSTGRES: Array<{ name: 'sqlite' | 'postgres'; open(): Promise<{ db: GatewayDatabase; cleanup(): Promise<void> }> }> = [
  {
    name: 'sqlite',
    async open() {
      const dir = tempDir();
      const db = await openGatewayDatabase({ dataDir: dir });
      return { db, cleanup: async () => removeDir(dir) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const fresh = await freshPostgresDatabase();
      const db = await openGatewayDatabase({ url: fresh.url, dataDir: tempDir() });
      return { db, cleanup: () => fresh.drop() };
    },
  },
];
