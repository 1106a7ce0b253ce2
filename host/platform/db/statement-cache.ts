import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * The SQLite handle Kysely is given: it prepares every query it runs, and preparing costs more
 * than running a primary-key read. Statements are kept per SQL text, the least recently used
 * dropped past `size` (queries with variable IN lists make new texts). A statement still being
 * iterated (`busy`) is never handed out again: that query gets a fresh one.
 */
export function withStatementCache(database: SQLite.Database, size = 256): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => void database.close(),
    prepare(sql: string): SqliteStatement {
      const cached = cache.get(sql);
      if (cached && !cached.busy) {
        // Map order is the LRU order: move it to the newest end.
        cache.delete(sql);
        cache.set(sql, cached);
        return cached as unknown as SqliteStatement;
      }
      const statement = database.prepare(sql);
      if (!cached) {
        cache.set(sql, statement);
        if (cache.size > size) cache.delete(cache.keys().next().value!);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}
