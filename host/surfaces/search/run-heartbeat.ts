import type { Kysely } from 'kysely';
import type { SearchTables } from './search-tables.js';
import type { Dialect } from '../../platform/db/database.js';

/** The tables of search runs that beat a heartbeat while they run: indexing and evaluation. */
export type HeartbeatTable = 'index_runs' | 'evaluation_jobs';

/** A running row whose heartbeat is older than this was left by a gateway that died. */
export const STALE_HEARTBEAT_MS = 30_000;

/**
 * At start: with SQLite this process is the only writer, so every running row is an orphan; with
 * PostgreSQL other instances may be running, so only rows with a stale heartbeat are. Returns how many.
 */
export async function interruptOrphansAtStart(db: Kysely<SearchTables>, dialect: Dialect, table: HeartbeatTable, now: number): Promise<number> {
  let q = db.updateTable(table).set({ state: 'interrupted', error: 'the gateway stopped during the run', finished_at: new Date(now).toISOString() }).where('state', '=', 'running');
  if (dialect === 'postgres') q = q.where('heartbeat_at', '<', now - STALE_HEARTBEAT_MS);
  const result = await q.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Marks the running rows of `table` whose `column` is `value` and whose heartbeat is stale interrupted. */
export function interruptStale(db: Kysely<SearchTables>, table: 'index_runs', column: 'id' | 'repo', value: string, now: number): Promise<void>;
export function interruptStale(db: Kysely<SearchTables>, table: 'evaluation_jobs', column: 'id', value: string, now: number): Promise<void>;
export async function interruptStale(db: Kysely<SearchTables>, table: HeartbeatTable, column: 'id' | 'repo', value: string, now: number): Promise<void> {
  await db
    .updateTable(table)
    .set({ state: 'interrupted', error: 'the run stopped reporting (its gateway died)', finished_at: new Date(now).toISOString() })
    .where(column, '=', value)
    .where('state', '=', 'running')
    .where('heartbeat_at', '<', now - STALE_HEARTBEAT_MS)
    .execute();
}
