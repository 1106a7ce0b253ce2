import type { Logger } from 'pino';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { EgressDeniedError } from '../../../../core/sdk/index.js';
import type { FaxConfig } from '../fax-settings.js';
import type { DeliveryOutbox, DeliveryRow } from './delivery-outbox.js';
import { signatureHeader } from './event-signature.js';
import { CALLBACK_DESTINATION } from './event-publisher.js';
import { ClaimLoop } from '../../../platform/runtime/claim-loop.js';
import type { SubscriptionStore } from './subscription-store.js';

const LEASE_MS = 60_000;
const MAX_BACKOFF_MS = 3_600_000;

/** What one attempt came to: delivered, worth another try, or refused for good. */
type Outcome = { ok: true; status: number } | { ok: false; retry: boolean; status: number | null; detail: string };

/**
 * Delivers the outbox: claims due rows with a lease and POSTs each stored body through the
 * outbound guard, signed with its destination's secret at the time of sending. 2xx delivers;
 * 5xx, 408, 429, no answer within WEBHOOK_TIMEOUT_SECONDS or a broken connection retries with
 * doubling backoff up to WEBHOOK_MAX_ATTEMPTS; any other 4xx, a refused address or a deleted
 * subscription fails the row at once.
 */
export class EventDelivery {
  private readonly worker: ClaimLoop<DeliveryRow>;
  readonly owner: string;

  constructor(private readonly deps: { outbox: DeliveryOutbox; subscriptions: SubscriptionStore; config: FaxConfig; outbound: OutboundGuard; logger: Logger }) {
    this.worker = new ClaimLoop({
      name: 'fax-events',
      outbox: deps.outbox,
      batch: 32,
      leaseMs: LEASE_MS,
      cadence: { pauseMs: () => deps.config.get('WEBHOOK_DELIVERY_POLL_MS') },
      logger: deps.logger,
      handle: async (rows) => {
        // One receiver's events go one after the other (claim order is event order); receivers in parallel.
        const byReceiver = new Map<string, DeliveryRow[]>();
        for (const row of rows) byReceiver.set(row.destination + row.url, [...(byReceiver.get(row.destination + row.url) ?? []), row]);
        // The batch's deliveries are marked in one write at its end: a job's next event is claimable
        // only once this one is, and a stop before the write sends them again (at least once).
        const delivered: Array<{ id: string; status: number }> = [];
        try {
          await Promise.all([...byReceiver.values()].map(async (list) => {
            for (const row of list) await this.deliver(row, delivered);
          }));
        } finally {
          if (delivered.length) await deps.outbox.deliveredAll(delivered, this.owner);
        }
      },
    });
    this.owner = this.worker.owner;
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  wake(): void {
    this.worker.wake();
  }

  private async deliver(row: DeliveryRow, delivered: Array<{ id: string; status: number }>): Promise<void> {
    const { outbox, config, logger } = this.deps;
    const outcome = await this.attempt(row);
    if (outcome.ok) {
      delivered.push({ id: row.id, status: outcome.status });
      return;
    }
    const attempts = row.attempts + 1;
    if (!outcome.retry || attempts >= config.get('WEBHOOK_MAX_ATTEMPTS')) {
      await outbox.failed(row.id, this.owner, outcome.detail, outcome.status);
      logger.warn({ event_id: row.event_id, destination: row.destination, attempts, detail: outcome.detail }, 'status event delivery failed for good');
      return;
    }
    const delay = Math.min(MAX_BACKOFF_MS, config.get('WEBHOOK_RETRY_BASE_MS') * 2 ** row.attempts);
    await outbox.retryLater(row.id, this.owner, Date.now() + delay, outcome.detail, outcome.status);
  }

  private async secretOf(row: DeliveryRow): Promise<string | undefined> {
    if (row.destination === CALLBACK_DESTINATION) return this.deps.config.get('WEBHOOK_SIGNING_SECRET');
    return (await this.deps.subscriptions.get(row.destination.slice(row.destination.indexOf(':') + 1)))?.secret;
  }

  private async attempt(row: DeliveryRow): Promise<Outcome> {
    const secret = await this.secretOf(row);
    if (!secret) return { ok: false, retry: false, status: null, detail: row.destination === CALLBACK_DESTINATION ? 'WEBHOOK_SIGNING_SECRET is not set' : 'the subscription was deleted' };
    const seconds = this.deps.config.get('WEBHOOK_TIMEOUT_SECONDS');
    const signal = AbortSignal.timeout(seconds * 1000);
    try {
      const res = await this.deps.outbound.request(
        new URL(row.url),
        {
          method: 'POST',
          signal,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'Switchboard-Webhooks/1',
            'x-switchboard-event-id': row.event_id,
            'x-switchboard-event': row.event_type,
            'x-switchboard-signature': signatureHeader(secret, row.body, Math.floor(Date.now() / 1000)),
          },
          body: row.body,
        },
        { timeoutMs: seconds * 1000 },
      );
      if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
      const retry = res.status >= 500 || res.status === 408 || res.status === 429;
      return { ok: false, retry, status: res.status, detail: `receiver answered HTTP ${res.status}` };
    } catch (err) {
      if (err instanceof EgressDeniedError) return { ok: false, retry: false, status: null, detail: err.message };
      if (signal.aborted) return { ok: false, retry: true, status: null, detail: `no answer within ${seconds} s (WEBHOOK_TIMEOUT_SECONDS)` };
      return { ok: false, retry: true, status: null, detail: `connection failed: ${connectionFailure(err)}` };
    }
  }
}

function connectionFailure(err: unknown): string {
  let current: unknown = err;
  for (let i = 0; i < 4 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (err as Error)?.message ?? String(err);
}
