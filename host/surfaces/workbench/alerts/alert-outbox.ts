import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AlertDeliveryTable, WorkbenchTables } from '../workbench-tables.js';
import { leaseFree, takeLeases } from '../../../platform/db/leases.js';
import type { AlertNotice } from './alert-notice.js';
import { pendingDeliveryColumns } from '../../../platform/db/pending-delivery.js';

export type DeliveryRow = AlertDeliveryTable;

/**
 * Alert deliveries as database rows: one per notice and target, written before any attempt,
 * claimed with a lease (SKIP LOCKED on PostgreSQL), so a restart or a second instance neither
 * loses nor repeats one. The (alert, notice, target) key is unique: instances that see the same
 * condition enqueue it once.
 */
export class AlertOutbox {
  constructor(
    private readonly db: Kysely<WorkbenchTables>,
    private readonly dialect: 'sqlite' | 'postgres',
  ) {}

  /** Adds the notice for every target; returns how many rows were new. */
  enqueue(notice: AlertNotice, eventKey: string, targetIds: string[], now = Date.now()): Promise<number> {
    return this.insert(notice, eventKey, targetIds, now);
  }

  /** Records a notice the severity filter dropped, finished at once, so the drop shows in the listing. */
  recordFiltered(notice: AlertNotice, eventKey: string, targetIds: string[], reason: string, now = Date.now()): Promise<number> {
    return this.insert(notice, eventKey, targetIds, now, { state: 'filtered', last_error: reason, finished_at: now });
  }

  private async insert(notice: AlertNotice, eventKey: string, targetIds: string[], now: number, outcome: { state: 'filtered'; last_error: string; finished_at: number } | undefined = undefined): Promise<number> {
    let added = 0;
    for (const target of targetIds) {
      const result = await this.db
        .insertInto('alert_deliveries')
        .values({
          id: randomUUID(),
          alert_id: notice.id,
          event_key: eventKey,
          target_id: target,
          notice: JSON.stringify(notice),
          ...pendingDeliveryColumns(now),
          ...outcome,
        })
        .onConflict((oc) => oc.columns(['alert_id', 'event_key', 'target_id']).doNothing())
        .executeTakeFirst();
      added += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
    return added;
  }

  /** Claims due deliveries, oldest first (per target in the order they were written); leases run by the database's clock. */
  async claim(owner: string, limit: number, leaseMs: number, now = Date.now()): Promise<DeliveryRow[]> {
    const candidates = this.db
      .selectFrom('alert_deliveries')
      .select('id')
      .where('state', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .where(leaseFree(this.dialect))
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit);
    const rows = await takeLeases(this.db, this.dialect, 'alert_deliveries', candidates, owner, leaseMs);
    return rows.sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
  }

  async delivered(id: string, owner: string, status: number, now = Date.now()): Promise<void> {
    await this.finish(id, owner, { state: 'delivered', last_status: status, last_error: null, finished_at: now }, now);
  }

  async failed(id: string, owner: string, detail: string, status: number | undefined, now = Date.now()): Promise<void> {
    await this.finish(id, owner, { state: 'failed', last_status: status ?? null, last_error: detail, finished_at: now }, now);
  }

  async retryLater(id: string, owner: string, delayMs: number, detail: string, status: number | undefined, now = Date.now()): Promise<void> {
    await this.db
      .updateTable('alert_deliveries')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: now + delayMs, lease_owner: null, lease_until: null, last_status: status ?? null, last_error: detail }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  async release(ids: string[], owner: string): Promise<void> {
    if (!ids.length) return;
    await this.db.updateTable('alert_deliveries').set({ lease_owner: null, lease_until: null }).where('id', 'in', ids).where('lease_owner', '=', owner).execute();
  }

  async recent(limit: number): Promise<DeliveryRow[]> {
    return this.db.selectFrom('alert_deliveries').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  private async finish(id: string, owner: string, set: Partial<DeliveryRow>, _now: number): Promise<void> {
    await this.db
      .updateTable('alert_deliveries')
      .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1), lease_owner: null, lease_until: null }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }
}
