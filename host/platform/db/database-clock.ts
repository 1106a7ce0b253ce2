import type { RawBuilder } from 'kysely';
import { sql } from './kysely-runtime.js';
import type { Dialect } from './database.js';

/**
 * The database's time in epoch milliseconds, the unit of every lease column. Leases are written
 * and compared in this clock, never an instance's: instances whose clocks differ would otherwise
 * each see the other's live lease as expired, or write one already expired.
 */
export function databaseNow(dialect: Dialect): RawBuilder<number> {
  // clock_timestamp(), not now(): now() is the start of the transaction the statement runs in.
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

/** The database's time `ms` from now (epoch milliseconds): the expiry of a lease taken or renewed now. */
export function databaseNowPlus(dialect: Dialect, ms: number): RawBuilder<number> {
  return sql<number>`${databaseNow(dialect)} + ${Math.round(ms)}`;
}
