import { existsSync } from 'node:fs';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { dataPath, definePlugin, z, type RetrievalProvider, type RetrievalWriteSession } from 'switchboard/sdk';
import { collectionFile, openCollectionDb } from './collection-db.js';
import { CollectionWriter } from './collection-writer.js';
import { invalidateCounts, searchCollection } from './collection-search.js';
import { writeSession } from 'switchboard/sdk/retrieval';
import { VectorCache } from './vector-cache.js';

const settings = z.object({
  /** Directory of the collection files, inside the host's DATA_DIR (the kernel resolves and checks it). */
  dir: dataPath('retrieval-sqlite'),
});

interface Open {
  db: SQLite.Database;
  writer: CollectionWriter;
  vectors: VectorCache;
}

/** The embedded retrieval backend: one SQLite file per collection, FTS5 plus optional vectors. */
export function createSqliteRetrieval(dir: string): RetrievalProvider & { close(): void } {
  const open = new Map<string, Open>();
  const get = (collection: string, create: boolean): Open | undefined => {
    let o = open.get(collection);
    if (o) return o;
    if (!create && !existsSync(collectionFile(dir, collection))) return undefined;
    const db = openCollectionDb(dir, collection);
    o = { db, writer: new CollectionWriter(db), vectors: new VectorCache() };
    open.set(collection, o);
    return o;
  };
  const write = <T>(collection: string, fn: (w: CollectionWriter) => T): T => {
    const o = get(collection, true)!;
    const result = o.db.transaction(() => fn(o.writer)).immediate();
    o.vectors.invalidate();
    invalidateCounts(o.db);
    return result;
  };
  return {
    async index(collection, documents) {
      return { indexed: write(collection, (w) => w.add(documents)) };
    },
    async search(collection, query, topK, options) {
      const o = get(collection, false);
      return o ? searchCollection(o.db, o.vectors, query, topK, options) : [];
    },
    async delete(collection, ids) {
      if (!get(collection, false)) return { deleted: 0 };
      return { deleted: write(collection, (w) => w.deleteIds(ids)) };
    },
    async deleteByPath(collection, paths) {
      if (!get(collection, false)) return { deleted: 0 };
      return { deleted: write(collection, (w) => w.deleteSources(paths)) };
    },
    async stats(collection) {
      const o = get(collection, false);
      return o ? o.writer.stats() : { documents: 0, sources: 0, vectors: 0 };
    },
    async openSession(collection): Promise<RetrievalWriteSession> {
      // Its own connection, so the whole session is one write transaction that readers never see
      // half done; a second session on the same collection fails at once instead of waiting.
      let db: SQLite.Database | undefined;
      try {
        db = openCollectionDb(dir, collection, { busyTimeoutMs: 0 });
        db.exec('BEGIN IMMEDIATE');
      } catch (err) {
        db?.close();
        throw new Error(`collection "${collection}" is being written by another session (${(err as Error).message})`);
      }
      const session = db;
      const writer = new CollectionWriter(session);
      const finish = () => {
        session.close();
        open.get(collection)?.vectors.invalidate();
      };
      return writeSession({
        sources: () => writer.sources(),
        replaceSource: (p, hash, documents) => writer.replaceSource(p, hash, documents),
        deleteSources: (paths) => writer.deleteSources(paths),
        commit() {
          try {
            session.exec('COMMIT');
          } catch (err) {
            if (session.inTransaction) session.exec('ROLLBACK');
            finish();
            throw err;
          }
          try {
            return writer.stats();
          } finally {
            finish();
          }
        },
        rollback() {
          session.exec('ROLLBACK');
          finish();
        },
      });
    },
    close() {
      for (const o of open.values()) o.db.close();
      open.clear();
    },
  };
}

export default definePlugin({
  settings,
  env: { dir: 'RETRIEVAL_SQLITE_DIR' },
  start(ctx) {
    const provider = createSqliteRetrieval(path.resolve(ctx.dataDir, ctx.settings.dir));
    ctx.onDispose(() => provider.close());
    return {
      providers: { retrieval: provider },
      health: () => ({ ok: true }),
    };
  },
});
