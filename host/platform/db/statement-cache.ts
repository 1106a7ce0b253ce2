import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { LruMap } from '../runtime/lru-map.js';

/**
 * The SQLite handle Kysely is given: it prepares every query it runs, and preparing costs more
 * than running a primary-key read. Statements are kept per SQL text, the least recently used
 * dropped past `size` (queries with variable IN lists make new texts). A statement still being
 * iterated (`busy`) is never handed out again: that query gets a fresh one.
 */
export function withStatementCache(database: SQLite.Database, size = 256): SqliteDatabase {
  const cache = new LruMap<string, SQLite.Statement>(size);
  return {
    close: () => void database.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached && !cached.busy) return cached as unknown as SqliteStatement;
      const statement = database.prepare(sql);
      if (!cached) cache.set(sql, statement);
      return statement as unknown as SqliteStatement;
    },
  };
}
