import { randomUUID } from 'node:crypto';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Dialect } from '../../../platform/db/database.js';
import { leaseFree, takeLeases } from '../../../platform/db/leases.js';
import type { FaxTables, FaxWebhookDeliveryTable } from '../fax-tables.js';
import { pendingDeliveryColumns } from '../../../platform/db/pending-delivery.js';

export type DeliveryRow = Selectable<FaxWebhookDeliveryTable>;

/** Rows of one INSERT at most (19 parameters each: within SQLite's and PostgreSQL's limits). */
const ENQUEUE_CHUNK = 200;

/** One event for one destination, as the publisher writes it. */
export interface NewDelivery {
  eventId: string;
  eventType: string;
  subjectId: string;
  /** `callback` (the job's callback_url) or `subscription:<id>`. */
  destination: string;
  owner: string;
  url: string;
  body: string;
  eventAt: number;
}

export interface DeliveryFilter {
  owner?: string | undefined;
  destination?: string | undefined;
  state?: string | undefined;
  subjectId?: string | undefined;
}

/** Which worker a row is for: status events POSTed to webhooks, or inbound faxes handed to inbound-sink plugins. */
export type DeliveryChannel = 'webhook' | 'sink';

/**
 * Deliveries as rows (one outbox per channel over one table): written when the event fires, claimed with a lease (SKIP
 * LOCKED on PostgreSQL), so a restart or a second instance neither loses nor repeats one. A row
 * is claimable only when no earlier pending row of its subject and destination waits: one job's
 * events reach one receiver in the order they happened, a retry holding back the later ones.
 */
export class DeliveryOutbox {
  constructor(
    private readonly db: Kysely<FaxTables>,
    private readonly dialect: Dialect,
    private readonly channel: DeliveryChannel = 'webhook',
  ) {}

  /** The deliveries of this turn of the event loop, written together. */
  private group: { rows: Insertable<FaxWebhookDeliveryTable>[]; written: Promise<void> } | undefined;

  /**
   * Writes deliveries, settled once they are committed. Those enqueued in one turn of the event
   * loop (the fax.queued of a group-committed burst of submits, say) share one INSERT: one
   * statement and one commit instead of one each; a failed INSERT fails every caller in it.
   */
  enqueue(deliveries: NewDelivery[], now = Date.now()): Promise<void> {
    if (!deliveries.length) return Promise.resolve();
    let group = this.group;
    if (!group) {
      const rows: Insertable<FaxWebhookDeliveryTable>[] = [];
      const written = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        if (this.group?.rows === rows) this.group = undefined;
        for (let i = 0; i < rows.length; i += ENQUEUE_CHUNK) await this.insert(rows.slice(i, i + ENQUEUE_CHUNK));
      });
      group = this.group = { rows, written };
    }
    for (const d of deliveries) group.rows.push(this.newRow(d, now));
    return group.written;
  }

  private newRow(d: NewDelivery, now: number): Insertable<FaxWebhookDeliveryTable> {
    return {
      id: randomUUID(),
      channel: this.channel,
      event_id: d.eventId,
      event_type: d.eventType,
      subject_id: d.subjectId,
      destination: d.destination,
      owner: d.owner,
      url: d.url,
      body: d.body,
      event_at: d.eventAt,
      ...pendingDeliveryColumns(now),
    };
  }

  private async insert(rows: Insertable<FaxWebhookDeliveryTable>[]): Promise<void> {
    await this.db
      .insertInto('fax_webhook_deliveries')
      .values(rows)
      .onConflict((oc) => oc.columns(['event_id', 'destination']).doNothing())
      .execute();
  }

  /** Due deliveries with no earlier pending one of their subject and destination, in event order. */
  async claim(owner: string, limit: number, leaseMs: number, now = Date.now()): Promise<DeliveryRow[]> {
    const candidates = this.db
      .selectFrom('fax_webhook_deliveries as d')
      .select('d.id')
      .where('d.channel', '=', this.channel)
      .where('d.state', '=', 'pending')
      .where('d.next_attempt_at', '<=', now)
      .where(leaseFree(this.dialect))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('fax_webhook_deliveries as e')
              .select('e.id')
              .whereRef('e.destination', '=', 'd.destination')
              .whereRef('e.subject_id', '=', 'd.subject_id')
              .where('e.state', '=', 'pending')
              .where((eb) => eb.or([eb('e.event_at', '<', eb.ref('d.event_at')), eb.and([eb('e.event_at', '=', eb.ref('d.event_at')), eb('e.event_id', '<', eb.ref('d.event_id'))])])),
          ),
        ),
      )
      .orderBy('d.event_at')
      .orderBy('d.event_id')
      .limit(limit);
    const rows = await takeLeases(this.db, this.dialect, 'fax_webhook_deliveries', candidates as never, owner, leaseMs);
    return rows.sort((a, b) => a.event_at - b.event_at || a.event_id.localeCompare(b.event_id));
  }

  async delivered(id: string, owner: string, status: number, now = Date.now()): Promise<void> {
    await this.finish(id, owner, { state: 'delivered', last_status: status, last_error: null, finished_at: now });
  }

  /** Marks a batch's deliveries delivered: one UPDATE per distinct status (usually one). */
  async deliveredAll(done: ReadonlyArray<{ id: string; status: number }>, owner: string, now = Date.now()): Promise<void> {
    const byStatus = new Map<number, string[]>();
    for (const { id, status } of done) byStatus.set(status, [...(byStatus.get(status) ?? []), id]);
    for (const [status, ids] of byStatus) {
      await this.db
        .updateTable('fax_webhook_deliveries')
        .set((eb) => ({ state: 'delivered', last_status: status, last_error: null, finished_at: now, attempts: eb('attempts', '+', 1), lease_owner: null, lease_until: null }))
        .where('id', 'in', ids)
        .where('lease_owner', '=', owner)
        .execute();
    }
  }

  async failed(id: string, owner: string, detail: string, status: number | null, now = Date.now()): Promise<void> {
    await this.finish(id, owner, { state: 'failed', last_status: status, last_error: detail, finished_at: now });
  }

  async retryLater(id: string, owner: string, at: number, detail: string, status: number | null): Promise<void> {
    await this.db
      .updateTable('fax_webhook_deliveries')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: at, lease_owner: null, lease_until: null, last_status: status, last_error: detail }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Sends a finished delivery again (same event id and body); false when it is still pending. */
  async redeliver(id: string, now = Date.now()): Promise<boolean> {
    const r = await this.db
      .updateTable('fax_webhook_deliveries')
      .set({ state: 'pending', attempts: 0, next_attempt_at: now, lease_owner: null, lease_until: null, finished_at: null })
      .where('id', '=', id)
      .where('channel', '=', this.channel)
      .where('state', '!=', 'pending')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  get(id: string): Promise<DeliveryRow | undefined> {
    return this.db.selectFrom('fax_webhook_deliveries').selectAll().where('id', '=', id).where('channel', '=', this.channel).executeTakeFirst();
  }

  /** Newest event first, keyset-paginated on (event_at, event_id). */
  list(filter: DeliveryFilter, limit: number, cursor?: { created: number; id: string }): Promise<DeliveryRow[]> {
    let q = this.db.selectFrom('fax_webhook_deliveries').selectAll().where('channel', '=', this.channel);
    if (filter.owner) q = q.where('owner', '=', filter.owner);
    if (filter.destination) q = q.where('destination', '=', filter.destination);
    if (filter.state) q = q.where('state', '=', filter.state);
    if (filter.subjectId) q = q.where('subject_id', '=', filter.subjectId);
    if (cursor) q = q.where((eb) => eb.or([eb('event_at', '<', cursor.created), eb.and([eb('event_at', '=', cursor.created), eb('event_id', '<', cursor.id)])]));
    return q.orderBy('event_at', 'desc').orderBy('event_id', 'desc').limit(limit).execute();
  }

  private async finish(id: string, owner: string, set: Partial<DeliveryRow>): Promise<void> {
    await this.db
      .updateTable('fax_webhook_deliveries')
      .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1), lease_owner: null, lease_until: null }))
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }
}
