import type { Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './database.js';

/** Tables whose rows workers take by a lease (lease_owner, lease_until). */
export type LeasedTable = { [T in keyof Database]: Database[T] extends { lease_owner: unknown; lease_until: unknown } ? T : never }[keyof Database];

/**
 * Leases the rows `candidates` picks (their ids, lease free) to `owner` for `leaseMs`, and returns
 * them. With PostgreSQL the candidates are locked with SKIP LOCKED, so instances never take the
 * same row; the lease is checked again in the update, so a row taken meanwhile is left alone.
 */
export async function takeLeases<T extends LeasedTable>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: T,
  candidates: SelectQueryBuilder<Database, LeasedTable, { id: string }>,
  owner: string,
  leaseMs: number,
  now: number,
): Promise<Array<Selectable<Database[T]>>> {
  const locked = dialect === 'postgres' ? candidates.forUpdate().skipLocked() : candidates;
  const rows = await db
    .updateTable(table as LeasedTable)
    .set({ lease_owner: owner, lease_until: now + leaseMs })
    .where('id', 'in', locked)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .execute();
  return rows as Array<Selectable<Database[T]>>;
}
