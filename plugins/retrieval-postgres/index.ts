import type pg from 'pg';
import { ConfigError, NotReadyError, definePlugin, envOnly, secret, z, type RetrievalProvider, type RetrievalWriteSession } from 'switchboard/sdk';
import { checkCollection, ensureSchema } from './collection-schema.js';
import { CollectionWriter, collectionStats } from './collection-writer.js';
import { searchCollection } from './collection-search.js';
import { writeSession } from 'switchboard/sdk/retrieval';
import { VectorCache } from './vector-cache.js';

const settings = z.object({
  /** Its own PostgreSQL URL; unset, the gateway's DATABASE_URL. Environment only: no run-time write chooses where the index goes. */
  url: envOnly(secret(z.string().optional())),
  /** The gateway's DATABASE_URL, which the host hands plugins that declare it (the fallback of `url`). */
  databaseUrl: envOnly(secret(z.string().optional())),
  /** Connections of this process to the database (searches take one each). */
  poolSize: z.coerce.number().int().min(1).max(100).default(5),
});

const ENV = { url: 'RETRIEVAL_POSTGRES_URL', databaseUrl: 'DATABASE_URL', poolSize: 'RETRIEVAL_POSTGRES_POOL_SIZE' } as const;

/** The URL the plugin uses: its own, else the gateway's when that is PostgreSQL. */
export function databaseUrlOf(s: { url?: string | undefined; databaseUrl?: string | undefined }): string {
  const url = s.url || s.databaseUrl;
  if (!url) throw new ConfigError(`retrieval-postgres: set ${ENV.url}, or run the gateway on PostgreSQL (${ENV.databaseUrl}=postgres://...)`, 'url');
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new ConfigError(`retrieval-postgres: ${s.url ? ENV.url : ENV.databaseUrl} is not a postgres:// URL${s.url ? '' : ` (the gateway runs on SQLite); set ${ENV.url}`}`, s.url ? 'url' : 'databaseUrl');
  }
  return url;
}

/** SQLSTATE of FOR UPDATE NOWAIT finding the row locked. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The shared retrieval backend: every collection in PostgreSQL, full-text search plus optional vectors. */
export function createPostgresRetrieval(pool: pg.Pool): RetrievalProvider & { close(): Promise<void> } {
  const vectors = new VectorCache();
  const ensureCollection = (collection: string) =>
    pool.query('INSERT INTO retrieval_collections (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [checkCollection(collection)]);
  const exists = async (collection: string) =>
    (await pool.query('SELECT 1 FROM retrieval_collections WHERE name = $1', [checkCollection(collection)])).rowCount === 1;
  /** One transaction that waits for the collection's write lock. */
  const write = async <T>(collection: string, fn: (w: CollectionWriter) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const writer = new CollectionWriter(client, collection);
      await writer.lock(false);
      const result = await fn(writer);
      await writer.finish();
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  };
  return {
    async index(collection, documents) {
      await ensureCollection(collection);
      return { indexed: await write(collection, (w) => w.add(documents)) };
    },
    async search(collection, query, topK, options) {
      return searchCollection(pool, vectors, checkCollection(collection), query, topK, options);
    },
    async delete(collection, ids) {
      if (!(await exists(collection))) return { deleted: 0 };
      return { deleted: await write(collection, (w) => w.deleteIds(ids)) };
    },
    async deleteByPath(collection, paths) {
      if (!(await exists(collection))) return { deleted: 0 };
      return { deleted: await write(collection, (w) => w.deleteSources(paths)) };
    },
    async stats(collection) {
      return collectionStats(pool, checkCollection(collection));
    },
    async openSession(collection): Promise<RetrievalWriteSession> {
      // One transaction on its own connection for the whole session: searches on every gateway
      // see the last commit until this one lands. A second session fails at once (NOWAIT), and a
      // session whose process dies is rolled back by the server when its connection drops.
      await ensureCollection(collection);
      const client = await pool.connect();
      const writer = new CollectionWriter(client, collection);
      try {
        await client.query('BEGIN');
        await writer.lock(true);
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        client.release();
        if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) throw new Error(`collection "${collection}" is being written by another session`);
        throw err;
      }
      const end = async (sql: 'COMMIT' | 'ROLLBACK') => {
        try {
          await client.query(sql);
        } finally {
          client.release();
        }
      };
      return writeSession({
        sources: () => writer.sources(),
        replaceSource: (p, hash, documents) => writer.replaceSource(p, hash, documents),
        deleteSources: (paths) => writer.deleteSources(paths),
        async commit() {
          try {
            await writer.finish();
          } catch (err) {
            await end('ROLLBACK').catch(() => {});
            throw err;
          }
          await end('COMMIT');
          return collectionStats(pool, collection);
        },
        rollback: () => end('ROLLBACK'),
      });
    },
    async close() {
      await pool.end();
    },
  };
}

export default definePlugin({
  settings,
  env: ENV,
  async start(ctx) {
    const connectionString = databaseUrlOf(ctx.settings);
    // Loaded only with a database to talk to: `pg` (and the fetch it probes for at load) would
    // otherwise sit in every gateway's memory, most of which never select this backend.
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString, max: ctx.settings.poolSize });
    // An idle connection the server dropped must not take the process down.
    pool.on('error', (err) => ctx.logger.warn('retrieval-postgres: idle connection failed', { err: err.message }));
    try {
      await ensureSchema(pool);
    } catch (err) {
      await pool.end().catch(() => {});
      throw new NotReadyError(`retrieval-postgres: the database does not answer: ${(err as Error).message}`);
    }
    const provider = createPostgresRetrieval(pool);
    ctx.onDispose(() => provider.close());
    return {
      providers: { retrieval: provider },
      health: async () => {
        await pool.query('SELECT 1');
        return { ok: true };
      },
    };
  },
});
