import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Kysely, RawBuilder } from 'kysely';
import type { PlatformTables } from './schema.js';
import type { Dialect } from './database.js';
import { databaseNow, databaseNowPlus } from './database-clock.js';
import { RecurringTask } from '../runtime/recurring-task.js';

/**
 * Named leases in the `cluster_leases` table, so work that must run once per cluster (cleanup,
 * alert evaluation, reconciliation) runs on one instance at a time. The holder renews every
 * lease it holds each third of `ttlMs()`; when it dies its leases expire after at most `ttlMs()`
 * and the next instance whose schedule fires takes the work over. A graceful stop releases them
 * at once. Not shared (SQLite: one process) every lease is this process's without a row, so a
 * killed process's leases never hold up the one started after it.
 *
 * Expiry is written and compared in the database's clock, never an instance's: two gateways whose
 * clocks differ would otherwise both see the other's lease as expired.
 */
export class ClusterLeases {
  /** This process, as lease rows name it. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly held = new Set<string>();
  private stopped = false;
  /** Renews the held leases each third of the ttl (read live); started by the first lease taken. */
  private readonly renewal: RecurringTask;

  /** Shared on PostgreSQL only: SQLite is one process, nothing to share. */
  private readonly shared: boolean;
  private readonly dbNow: RawBuilder<number>;

  constructor(
    private readonly db: Kysely<PlatformTables>,
    private readonly dialect: Dialect,
    private readonly ttlMs: () => number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    this.shared = dialect === 'postgres';
    this.dbNow = databaseNow(dialect);
    // A plain loop, not a leased one: leased loops depend on this renewal.
    this.renewal = new RecurringTask({ cadence: { pauseMs: () => Math.max(50, Math.floor(this.ttlMs() / 3)) }, task: () => this.renew(), onError });
  }

  /**
   * Takes `name` for this process (or renews it when held): true when this process holds it now.
   * One statement: a free, expired or own row is (re)written; a live lease of another is left alone.
   */
  async acquire(name: string): Promise<boolean> {
    if (this.stopped) return false;
    if (!this.shared) return true;
    const until = databaseNowPlus(this.dialect, this.ttlMs());
    const row = await this.db
      .insertInto('cluster_leases')
      .values({ name, owner: this.owner, lease_until: until })
      .onConflict((oc) =>
        oc
          .column('name')
          .doUpdateSet({ owner: this.owner, lease_until: until })
          .where((eb) => eb.or([eb('cluster_leases.owner', '=', this.owner), eb('cluster_leases.lease_until', '<', this.dbNow)])),
      )
      .returning('owner')
      .executeTakeFirst();
    const holds = row?.owner === this.owner;
    if (holds) {
      this.held.add(name);
      if (!this.stopped) this.renewal.start();
    } else this.held.delete(name);
    return holds;
  }

  /** Whether this process held `name` at its last acquire or renewal. */
  holds(name: string): boolean {
    return this.held.has(name);
  }

  /** Who holds `name` now (undefined when nobody or expired), for status views and tests. */
  async holder(name: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('cluster_leases').select('owner').where('name', '=', name).where('lease_until', '>=', this.dbNow).executeTakeFirst();
    return row?.owner;
  }

  /**
   * `task` wrapped to run only where lease `name` is held: on every other instance a call is a
   * no-op answering false. Long runs keep the lease, as renewal goes on during them.
   */
  exclusive(name: string, task: () => Promise<unknown>): () => Promise<boolean> {
    return async () => {
      if (!(await this.acquire(name))) return false;
      await task();
      return true;
    };
  }

  /** Renews nothing more and hands every held lease back, so another instance takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    // a renewal under way ends first, so it cannot write a lease after the release below
    await this.renewal.stop();
    const names = [...this.held];
    this.held.clear();
    if (names.length) await this.db.updateTable('cluster_leases').set({ lease_until: 0 }).where('owner', '=', this.owner).where('name', 'in', names).execute();
  }

  private async renew(): Promise<void> {
    for (const name of [...this.held]) {
      try {
        await this.acquire(name);
      } catch (err) {
        // Kept in `held`: the next renewal retries; past the ttl another instance may take it.
        this.onError(err);
      }
    }
  }
}
