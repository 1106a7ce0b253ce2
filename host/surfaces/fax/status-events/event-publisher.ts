import type { Logger } from 'pino';
import { grants } from '../../../platform/auth/scopes.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import { inboundView } from '../inbound/inbound-view.js';
import type { InboundRow } from '../inbound/inbound-store.js';
import { toFaxJobOut } from '../jobs/fax-service.js';
import type { FaxJobRow } from '../jobs/job-store.js';
import type { DeliveryOutbox, NewDelivery } from './delivery-outbox.js';
import { fullNumbersScope, newEventId, onceEventId, type FaxEvent, type FaxEventType } from './fax-events.js';
import { CANCELED_ERROR, isFinal } from '../jobs/job-states.js';
import type { EventMarkers } from './event-sweep.js';
import type { Subscription, SubscriptionStore } from './subscription-store.js';
import { inMailboxes } from '../mailboxes/mailbox-limit.js';

export const CALLBACK_DESTINATION = 'callback';
export const subscriptionDestination = (id: string) => `subscription:${id}`;

/** A job as an event shows it: GET /fax/{id}'s fields (no attempts), the number masked unless the receiver may read it. */
function jobData(row: FaxJobRow, fullNumbers: boolean): Record<string, unknown> {
  const out = toFaxJobOut(row);
  return { ...out, to: fullNumbers ? out.to : maskPhone(out.to) };
}

/**
 * Turns a job's status step or a stored inbound fax into deliveries in the outbox: one for the
 * job's callback_url, one per subscription to the event. Each body is final when written (the
 * event as of now, masked for its receiver), so a retry or redelivery sends the same bytes.
 */
export class FaxEventPublisher {
  constructor(
    private readonly deps: {
      outbox: DeliveryOutbox;
      subscriptions: SubscriptionStore;
      markers: EventMarkers;
      logger: Pick<Logger, 'warn'>;
      onEnqueued: () => void;
      /** The mailboxes a subscription's owning key is limited to now; undefined: all. */
      ownerMailboxes: (owner: string) => Promise<readonly string[] | undefined>;
    },
  ) {}

  // Job events never throw: a status change is not undone by a failed publish, which is logged
  // (and, for the events that happen once, left marked for the sweep to publish).
  queued = (row: FaxJobRow) => this.job('fax.queued', row, true);
  sending = (row: FaxJobRow) => this.job('fax.sending', row, false);
  retrying = (row: FaxJobRow) => this.job('fax.retrying', row, false);
  /** SUCCESS is fax.delivered; FAILED is fax.canceled when a cancel ended it, else fax.failed. */
  finished = (row: FaxJobRow) => this.job(finalEventOf(row), row, true);

  async inbound(row: InboundRow, late?: { at: number }): Promise<void> {
    // A subscription of a mailbox-limited key hears only its mailboxes' faxes.
    const visible = async (s: Subscription) => inMailboxes(await this.deps.ownerMailboxes(s.owner), row.mailbox);
    if (await this.publish('inbound.received', row.id, true, (full) => inboundView(row, full), undefined, late, visible)) await this.deps.markers.inboundPublished(row.id);
  }

  /**
   * What a crash left unpublished of a marked job: its final event if it has ended, else its
   * fax.queued, each dated when it happened and sent only to subscriptions that existed then.
   */
  async owedByJob(row: FaxJobRow): Promise<void> {
    const final = isFinal(row.status);
    const at = Date.parse(final ? (row.finished_at ?? row.updated_at) : row.created_at);
    await this.job(final ? finalEventOf(row) : 'fax.queued', row, true, { at });
  }

  private async job(type: FaxEventType, row: FaxJobRow, once: boolean, late?: { at: number }): Promise<void> {
    const published = await this.publish(type, row.id, once, (full) => jobData(row, full), row.callback_url ? { url: row.callback_url, owner: row.submitted_by ?? 'unknown', full: row.callback_full_numbers === 1 } : undefined, late);
    if (published && once) await this.deps.markers.jobPublished(row.id, row.updated_at);
  }

  /**
   * `once`: the event happens once per subject (queued, a final status), so its id is derived from
   * both and a second report of it is dropped by the outbox. `late`: published by the sweep, dated
   * when it happened. `visible`: which subscriptions may hear it. True when its deliveries are in
   * the outbox (or it has none).
   */
  private async publish(type: FaxEventType, subjectId: string, once: boolean, data: (fullNumbers: boolean) => Record<string, unknown>, callback?: { url: string; owner: string; full: boolean }, late?: { at: number }, visible?: (s: Subscription) => Promise<boolean>): Promise<boolean> {
    try {
      const now = late?.at ?? Date.now();
      const eventId = once ? onceEventId(subjectId, type) : newEventId(now);
      // At most two bodies however many receivers: numbers in full, and masked.
      const bodies = new Map<boolean, string>();
      const body = (full: boolean) => {
        let text = bodies.get(full);
        if (text === undefined) bodies.set(full, (text = JSON.stringify({ id: eventId, type, created_at: new Date(now).toISOString(), data: data(full) } satisfies FaxEvent)));
        return text;
      };
      const deliveries: NewDelivery[] = [];
      const base = { eventId, eventType: type, subjectId, eventAt: now };
      if (callback) deliveries.push({ ...base, destination: CALLBACK_DESTINATION, owner: callback.owner, url: callback.url, body: body(callback.full) });
      for (const s of await this.deps.subscriptions.to(type)) {
        // A subscription made after a late event happened did not ask for it.
        if (late && Date.parse(s.created_at) > now) continue;
        if (visible && !(await visible(s))) continue;
        deliveries.push({ ...base, destination: subscriptionDestination(s.id), owner: s.owner, url: s.url, body: body(grants(s.scopes, fullNumbersScope(type))) });
      }
      if (!deliveries.length) return true;
      await this.deps.outbox.enqueue(deliveries, Date.now());
      this.deps.onEnqueued();
      return true;
    } catch (err) {
      this.deps.logger.warn({ event: type, subject: subjectId, err: (err as Error).message }, 'status event not written to the outbox');
      return false;
    }
  }
}

function finalEventOf(row: FaxJobRow): FaxEventType {
  return row.status === 'SUCCESS' ? 'fax.delivered' : row.error === CANCELED_ERROR ? 'fax.canceled' : 'fax.failed';
}
