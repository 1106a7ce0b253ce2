import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ClusterLeases } from '../../../platform/db/cluster-leases.js';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';
import type { FaxTables } from '../fax-tables.js';
import type { InboundRow } from '../inbound/inbound-store.js';
import type { FaxJobRow } from '../jobs/job-store.js';

/** How long a marked row is left to the path that marked it before the sweep publishes for it. */
export const SWEEP_GRACE_MS = 30_000;
const SWEEP_PAUSE_MS = 30_000;
const SWEEP_BATCH = 200;

/**
 * The `event_pending` marks: set in the same statement as the status change (or insert) that
 * makes an event happen once, cleared once its deliveries are in the outbox. A crash between the
 * two leaves the mark, never a lost event.
 */
export class EventMarkers {
  constructor(private readonly db: Kysely<FaxTables>) {}

  /** Clears the job's mark unless it changed since `updatedAt` (a later step owes its own event). */
  async jobPublished(id: string, updatedAt: string): Promise<void> {
    await this.db.updateTable('fax_jobs').set({ event_pending: 0 }).where('id', '=', id).where('updated_at', '=', updatedAt).where('event_pending', '=', 1).execute();
  }

  async inboundPublished(id: string): Promise<void> {
    await this.db.updateTable('inbound_faxes').set({ event_pending: 0 }).where('id', '=', id).where('event_pending', '=', 1).execute();
  }

  /** Marked jobs unchanged for the grace, oldest first. */
  jobsOwed(now: number, limit: number): Promise<FaxJobRow[]> {
    const before = new Date(now - SWEEP_GRACE_MS).toISOString();
    return this.db.selectFrom('fax_jobs').selectAll().where('event_pending', '=', 1).where('updated_at', '<', before).orderBy('updated_at').limit(limit).execute();
  }

  inboundOwed(now: number, limit: number): Promise<InboundRow[]> {
    return this.db.selectFrom('inbound_faxes').selectAll().where('event_pending', '=', 1).where('created_at', '<', now - SWEEP_GRACE_MS).orderBy('created_at').limit(limit).execute();
  }
}

export interface OwedEvents {
  owedByJob(row: FaxJobRow): Promise<void>;
  inbound(row: InboundRow, late: { at: number }): Promise<void>;
}

/**
 * Publishes the once-events a crash (or a database error at publish time) left behind: each
 * marked row past the grace gets its event with its deterministic id, so one the outbox holds
 * already is not written twice. One instance of a cluster sweeps at a time.
 */
export class StatusEventSweep {
  private readonly loop: RecurringTask;

  constructor(private readonly deps: { markers: EventMarkers; events: OwedEvents; leases: ClusterLeases; logger: Pick<Logger, 'warn' | 'info'> }) {
    this.loop = new RecurringTask({
      cadence: { pauseMs: () => SWEEP_PAUSE_MS },
      task: deps.leases.exclusive('fax.status-event-sweep', () => this.runOnce()),
      onError: (err) => deps.logger.warn({ err: (err as Error).message }, 'status event sweep failed; the next pass retries'),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass; how many rows it published for. */
  async runOnce(now = Date.now()): Promise<number> {
    const { markers, events } = this.deps;
    let published = 0;
    for (const row of await markers.jobsOwed(now, SWEEP_BATCH)) {
      await events.owedByJob(row);
      published++;
    }
    for (const row of await markers.inboundOwed(now, SWEEP_BATCH)) {
      await events.inbound(row, { at: row.created_at });
      published++;
    }
    if (published) this.deps.logger.info({ rows: published }, 'status events a stop left unpublished were written to the outbox');
    return published;
  }
}
