import type { ExpressionBuilder, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { Dialect } from './database.js';
import { databaseNow, databaseNowPlus } from './database-clock.js';

/** The columns of a row workers take by a lease. */
interface LeaseColumns {
  id: string;
  lease_owner: string | null;
  lease_until: number | null;
}

/** The tables of `DB` whose rows workers take by a lease (lease_owner, lease_until). */
export type LeasedTable<DB> = { [T in keyof DB & string]: DB[T] extends LeaseColumns ? T : never }[keyof DB & string];

/** A row's lease is free: never taken, let go, or expired by the database's clock (see database-clock.ts). */
export function leaseFree(dialect: Dialect) {
  const now = databaseNow(dialect);
  // any: the filter applies to whichever leased table the caller's query reads
  return (eb: ExpressionBuilder<any, any>) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]);
}

/**
 * Leases the rows `candidates` picks (their ids, lease free) to `owner` for `leaseMs`, and returns
 * them. With PostgreSQL the candidates are locked with SKIP LOCKED, so instances never take the
 * same row; the lease is checked again in the update, so a row taken meanwhile is left alone.
 * Expiry is the database's time plus `leaseMs`, whatever the clock of the instance taking it.
 */
export async function takeLeases<DB, T extends LeasedTable<DB>>(
  db: Kysely<DB>,
  dialect: Dialect,
  table: T,
  candidates: SelectQueryBuilder<DB, any, { id: string }>,
  owner: string,
  leaseMs: number,
): Promise<Array<Selectable<DB[T]>>> {
  const locked = dialect === 'postgres' ? candidates.forUpdate().skipLocked() : candidates;
  const rows = await (db as unknown as Kysely<any>)
    .updateTable(table as string)
    .set({ lease_owner: owner, lease_until: databaseNowPlus(dialect, leaseMs) })
    .where('id', 'in', locked as SelectQueryBuilder<any, any, { id: string }>)
    .where(leaseFree(dialect))
    .returningAll()
    .execute();
  return rows as Array<Selectable<DB[T]>>;
}

/** Extends the leases `owner` holds on `ids` to the database's time plus `leaseMs`. */
export async function renewLeases<DB>(db: Kysely<DB>, dialect: Dialect, table: LeasedTable<DB>, ids: string[], owner: string, leaseMs: number): Promise<void> {
  if (!ids.length) return;
  await (db as unknown as Kysely<any>).updateTable(table as string).set({ lease_until: databaseNowPlus(dialect, leaseMs) }).where('lease_owner', '=', owner).where('id', 'in', ids).execute();
}
