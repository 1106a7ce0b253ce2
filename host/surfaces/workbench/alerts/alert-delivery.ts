import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { AlertDelivery as DeliveryOutcome } from '../../../../core/sdk/contracts/alert-sink.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { ClaimLoop } from '../../../platform/runtime/claim-loop.js';
import type { AlertNotice } from './alert-notice.js';
import type { AlertOutbox, DeliveryRow } from './alert-outbox.js';

const LEASE_MS = 60_000;
const POLL_MS = 500;
const MAX_BACKOFF_MS = 5 * 60_000;
const TARGET_PREFIX = 'plugin:';

/**
 * Delivers the outbox: claims due rows with a lease and hands each stored notice, as stored, to
 * its target `plugin:<id>`, an alert-sink plugin (a WEBHOOK_TARGETS URL is one too: an instance
 * of the default sink). The sink classifies the answer; here a permanent failure fails the row
 * at once and a transient one is retried with backoff up to ALERT_DELIVERY_MAX_ATTEMPTS.
 * Rows of one target are sent one after the other in the order they were written; a retry
 * waiting for its backoff lets newer notices of that target pass (documented).
 */
export class AlertDelivery {
  readonly owner: string;
  /** Drains every POLL_MS, at once when woken (a notice was written, a redelivery asked). */
  private readonly loop: ClaimLoop<DeliveryRow>;
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly deps: { outbox: AlertOutbox; config: WorkbenchConfig; kernel: Kernel; logger: Logger; metrics: Registry },
  ) {
    this.outcomes = new Counter({ name: 'switchboard_alert_deliveries_total', help: 'Alert delivery attempts by outcome (delivered, retry, failed).', labelNames: ['outcome'], registers: [deps.metrics] });
    this.loop = new ClaimLoop({
      name: 'alerts',
      outbox: deps.outbox,
      batch: 32,
      leaseMs: LEASE_MS,
      cadence: { everyMs: () => POLL_MS },
      logger: deps.logger,
      handle: async (rows) => {
        // One target's rows one after the other, in the order they were written; targets in parallel.
        const byTarget = new Map<string, DeliveryRow[]>();
        for (const row of rows) byTarget.set(row.target_id, [...(byTarget.get(row.target_id) ?? []), row]);
        await Promise.all(
          [...byTarget.values()].map(async (list) => {
            for (const row of list) await this.deliver(row);
          }),
        );
      },
    });
    this.owner = this.loop.owner;
  }

  start(): void {
    this.loop.start();
  }

  /** A drain under way ends after the batch in hand. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  private async deliver(row: DeliveryRow): Promise<void> {
    const { outbox, config, logger } = this.deps;
    const notice = JSON.parse(row.notice) as AlertNotice;
    const outcome = await this.send(row.target_id, notice);
    if (outcome.ok) {
      await outbox.delivered(row.id, this.owner, outcome.status ?? 200);
      this.outcomes.inc({ outcome: 'delivered' });
      return;
    }
    const attempts = row.attempts + 1;
    const detail = outcome.detail ?? 'failed';
    if (outcome.permanent || attempts >= config.get('ALERT_DELIVERY_MAX_ATTEMPTS')) {
      await outbox.failed(row.id, this.owner, detail, outcome.status);
      this.outcomes.inc({ outcome: 'failed' });
      logger.warn({ alert: notice.id, target: row.target_id, attempts, detail }, 'alert delivery failed');
      return;
    }
    const delay = Math.min(MAX_BACKOFF_MS, config.get('ALERT_RETRY_BASE_MS') * 2 ** row.attempts);
    await outbox.retryLater(row.id, this.owner, delay, detail, outcome.status);
    this.outcomes.inc({ outcome: 'retry' });
  }

  /** One attempt; a receiver that did not answer within ALERT_WEBHOOK_TIMEOUT fails with that reason. */
  private async send(targetId: string, notice: AlertNotice): Promise<DeliveryOutcome> {
    const seconds = this.deps.config.get('ALERT_WEBHOOK_TIMEOUT');
    const signal = AbortSignal.timeout(seconds * 1000);
    const outcome = await this.attempt(targetId, notice, signal);
    if (!outcome.ok && signal.aborted && outcome.status === undefined) return { ...outcome, detail: `no answer within ${seconds} s (ALERT_WEBHOOK_TIMEOUT)` };
    return outcome;
  }

  private async attempt(targetId: string, notice: AlertNotice, signal: AbortSignal): Promise<DeliveryOutcome> {
    const { kernel } = this.deps;
    if (!targetId.startsWith(TARGET_PREFIX)) return { ok: false, permanent: true, detail: `"${targetId}" is not an alert target (${TARGET_PREFIX}<id>)` };
    const pluginId = targetId.slice(TARGET_PREFIX.length);
    const state = kernel.stateOf(pluginId);
    // Removed for good (a manifest deleted, a URL taken out of WEBHOOK_TARGETS): no retry can help.
    if (state === 'unknown') return { ok: false, permanent: true, detail: `no plugin ${pluginId}: it was removed (or its WEBHOOK_TARGETS URL was)` };
    if (!kernel.isActive('alert-sink', pluginId)) return { ok: false, detail: `alert-sink plugin ${pluginId} is ${state}` };
    try {
      return await kernel.withProvider('alert-sink', pluginId, (sink) => sink.deliver(notice, signal));
    } catch (err) {
      return { ok: false, detail: (err as Error)?.message ?? String(err) };
    }
  }
}
