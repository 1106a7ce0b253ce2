import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { InboundSinkDelivery, InboundSinkDocument, InboundSinkResult } from '../../../../core/sdk/index.js';
import { publicBaseUrl } from '../../../platform/http/public-url.js';
import type { FaxConfig } from '../fax-settings.js';
import { INBOUND_TOKEN_SCOPE } from '../inbound/inbound-service.js';
import type { InboundRow, InboundStore } from '../inbound/inbound-store.js';
import type { DocumentTokens } from '../jobs/document-tokens.js';
import type { MailboxSink, MailboxStore } from '../mailboxes/mailbox-store.js';
import type { DeliveryOutbox, DeliveryRow } from '../status-events/delivery-outbox.js';
import { ClaimLoop } from '../../../platform/runtime/claim-loop.js';

const LEASE_MS = 10 * 60_000;
const MAX_BACKOFF_MS = 3_600_000;
export const SINK_EVENT = 'inbound.sink';

/** What a sink row's body holds: the mailbox's target as it was when the fax arrived. */
export interface SinkTargetBody extends MailboxSink {
  mailbox: string;
}

/** `sink:<plugin>#<n>`: the n-th target of the mailbox (two targets may use one plugin). */
const sinkDestination = (target: MailboxSink, index: number) => `sink:${target.sink}#${index}`;

/**
 * Hands stored inbound faxes to the inbound-sink plugins their mailbox names, through the
 * `sink` channel of the durable outbox: one row per fax and target written when the fax is
 * stored, claimed with a lease, retried with doubling backoff up to INBOUND_SINK_MAX_ATTEMPTS.
 * The document (attached, or a link with a fresh token) is made at each attempt, never stored.
 */
export class InboundSinkDeliveries {
  private readonly worker: ClaimLoop<DeliveryRow>;
  private readonly owner: string;
  private readonly outcomes: Counter<'sink' | 'outcome'>;

  constructor(private readonly deps: { outbox: DeliveryOutbox; mailboxes: MailboxStore; inbound: InboundStore; kernel: Kernel; tokens: DocumentTokens; config: FaxConfig; logger: Logger; metrics: Registry }) {
    this.outcomes = new Counter({ name: 'switchboard_inbound_sink_deliveries_total', help: 'Inbound sink delivery attempts by sink plugin and outcome (delivered, retry, failed).', labelNames: ['sink', 'outcome'], registers: [deps.metrics] });
    this.worker = new ClaimLoop({
      name: 'inbound-sinks',
      outbox: deps.outbox,
      batch: 8,
      leaseMs: LEASE_MS,
      cadence: { pauseMs: () => deps.config.get('INBOUND_SINK_POLL_MS') },
      logger: deps.logger,
      handle: async (rows) => {
        await Promise.all(rows.map((row) => this.deliver(row)));
      },
    });
    this.owner = this.worker.owner;
  }

  /** Writes one delivery per sink target of the fax's mailbox (none: nothing); a replay of the same fax adds nothing. */
  async enqueue(row: InboundRow): Promise<void> {
    if (!row.mailbox) return;
    const mailbox = await this.deps.mailboxes.get(row.mailbox);
    if (!mailbox?.sinks.length) return;
    const now = Date.now();
    await this.deps.outbox.enqueue(
      mailbox.sinks.map((target, i) => ({
        eventId: `inbound:${row.id}`,
        eventType: SINK_EVENT,
        subjectId: row.id,
        destination: sinkDestination(target, i),
        owner: `mailbox:${mailbox.name}`,
        url: `sink:${target.sink}`,
        body: JSON.stringify({ ...target, mailbox: mailbox.name } satisfies SinkTargetBody),
        eventAt: now,
      })),
      now,
    );
    this.worker.wake();
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

  private async deliver(row: DeliveryRow): Promise<void> {
    const { outbox, config, logger } = this.deps;
    const target = JSON.parse(row.body) as SinkTargetBody;
    const outcome = await this.attempt(row, target);
    if (outcome.ok) {
      await outbox.delivered(row.id, this.owner, 200);
      this.outcomes.inc({ sink: target.sink, outcome: 'delivered' });
      logger.info({ delivery_id: row.id, inbound_id: row.subject_id, sink: target.sink, mailbox: target.mailbox }, 'inbound fax handed to its sink');
      return;
    }
    const attempts = row.attempts + 1;
    const detail = outcome.detail ?? 'the sink gave no reason';
    if (outcome.permanent || attempts >= config.get('INBOUND_SINK_MAX_ATTEMPTS')) {
      await outbox.failed(row.id, this.owner, detail, null);
      this.outcomes.inc({ sink: target.sink, outcome: 'failed' });
      logger.warn({ delivery_id: row.id, inbound_id: row.subject_id, sink: target.sink, mailbox: target.mailbox, attempts, detail }, 'inbound sink delivery failed for good');
      return;
    }
    const delay = Math.min(MAX_BACKOFF_MS, config.get('INBOUND_SINK_RETRY_BASE_MS') * 2 ** row.attempts);
    await outbox.retryLater(row.id, this.owner, Date.now() + delay, detail, null);
    this.outcomes.inc({ sink: target.sink, outcome: 'retry' });
    logger.warn({ delivery_id: row.id, inbound_id: row.subject_id, sink: target.sink, attempts, retry_in_ms: delay, detail }, 'inbound sink delivery failed; retrying');
  }

  private async attempt(row: DeliveryRow, target: SinkTargetBody): Promise<InboundSinkResult> {
    const fax = await this.deps.inbound.get(row.subject_id);
    if (!fax || fax.deleted_at || !fax.pdf_key) return { ok: false, permanent: true, detail: 'the inbound fax was deleted' };
    const seconds = this.deps.config.get('INBOUND_SINK_TIMEOUT_SECONDS');
    const signal = AbortSignal.timeout(seconds * 1000);
    try {
      const delivery: InboundSinkDelivery = {
        delivery_id: row.id,
        fax: { id: fax.id, mailbox: target.mailbox, from: fax.from_number, to: fax.to_number, pages: fax.pages ?? 0, received_at: fax.received_at },
        recipients: target.recipients,
        document: await this.document(fax, target),
      };
      const result = await this.deps.kernel.withProvider('inbound-sink', target.sink, (sink) => sink.deliver(delivery, signal));
      if (!result.ok && signal.aborted) return { ok: false, detail: `no answer within ${seconds} s (INBOUND_SINK_TIMEOUT_SECONDS)` };
      return result;
    } catch (err) {
      if (signal.aborted) return { ok: false, detail: `no answer within ${seconds} s (INBOUND_SINK_TIMEOUT_SECONDS)` };
      // A sink plugin not (yet) active, storage briefly away: worth another try.
      return { ok: false, detail: (err as Error).message };
    }
  }

  private async document(fax: InboundRow, target: SinkTargetBody): Promise<InboundSinkDocument> {
    const filename = `fax-${fax.id}.pdf`;
    const { kernel, config, tokens } = this.deps;
    const key = fax.pdf_key;
    if (target.document === 'attach' && key) return { mode: 'attach', filename, pdf: await kernel.withProvider('storage', config.get('STORAGE_BACKEND'), (s) => s.get(key)) };
    const ttlMs = config.get('INBOUND_SINK_LINK_TTL_SECONDS') * 1000;
    const now = Date.now();
    const token = tokens.issue(INBOUND_TOKEN_SCOPE, fax.id, ttlMs, now);
    return { mode: 'link', filename, url: `${publicBaseUrl(config)}/inbound/${encodeURIComponent(fax.id)}/pdf?token=${token}`, expires_at: new Date(now + ttlMs).toISOString() };
  }
}
