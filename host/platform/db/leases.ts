import type { ExpressionBuilder, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';
import type { Dialect } from './database.js';
import { databaseNow, databaseNowPlus } from './database-clock.js';

/** Tables whose rows workers take by a lease (lease_owner, lease_until). */
export type LeasedTable = { [T in keyof Database]: Database[T] extends { lease_owner: unknown; lease_until: unknown } ? T : never }[keyof Database];

/** A row's lease is free: never taken, let go, or expired by the database's clock (see database-clock.ts). */
export function leaseFree(dialect: Dialect) {
  const now = databaseNow(dialect);
  return (eb: ExpressionBuilder<Database, LeasedTable>) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);
}

/**
 * Leases the rows `candidates` picks (their ids, lease free) to `owner` for `leaseMs`, and returns
 * them. With PostgreSQL the candidates are locked with SKIP LOCKED, so instances never take the
 * same row; the lease is checked again in the update, so a row taken meanwhile is left alone.
 * Expiry is the database's time plus `leaseMs`, whatever the clock of the instance taking it.
 */
export async function takeLeases<T extends LeasedTable>(
  db: Kysely<Database>,
  dialect: Dialect,
  table: T,
  candidates: SelectQueryBuilder<Database, LeasedTable, { id: string }>,
  owner: string,
  leaseMs: number,
): Promise<Array<Selectable<Database[T]>>> {
  const locked = dialect === 'postgres' ? candidates.forUpdate().skipLocked() : candidates;
  const rows = await db
    .updateTable(table as LeasedTable)
    .set({ lease_owner: owner, lease_until: databaseNowPlus(dialect, leaseMs) })
    .where('id', 'in', locked)
    .where(leaseFree(dialect))
    .returningAll()
    .execute();
  return rows as Array<Selectable<Database[T]>>;
}

/** Extends the leases `owner` holds on `ids` to the database's time plus `leaseMs`. */
export async function renewLeases(db: Kysely<Database>, dialect: Dialect, table: LeasedTable, ids: string[], owner: string, leaseMs: number): Promise<void> {
  if (!ids.length) return;
  await db.updateTable(table).set({ lease_until: databaseNowPlus(dialect, leaseMs) }).where('lease_owner', '=', owner).where('id', 'in', ids).execute();
}
