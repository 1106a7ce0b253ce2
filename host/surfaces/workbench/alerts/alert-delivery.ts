import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import { alertOfNotice, type AlertDelivery as DeliveryOutcome } from '../../../../core/sdk/contracts/alert-sink.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';
import { parseWebhookTargets, type WebhookTarget } from './webhook-targets.js';
import type { AlertNotice } from './alert-notice.js';
import type { AlertOutbox, DeliveryRow } from './alert-outbox.js';
import type { WebhookReceivers } from './alert-targets.js';

const LEASE_MS = 60_000;
const POLL_MS = 500;
const MAX_BACKOFF_MS = 5 * 60_000;

/** Every target a notice goes to now: WEBHOOK_TARGETS, and each active alert-sink plugin. */
export function currentTargets(config: WorkbenchConfig, kernel: Kernel): { webhooks: WebhookTarget[]; plugins: string[]; problems: string[] } {
  const { targets, problems } = parseWebhookTargets(config.get('WEBHOOK_TARGETS'), config.get('ALERT_ALLOW_HTTP_LOOPBACK'));
  const plugins = kernel.providersOf('alert-sink').filter((id) => kernel.isActive('alert-sink', id));
  return { webhooks: targets, plugins, problems };
}

export function targetIds(config: WorkbenchConfig, kernel: Kernel): string[] {
  const { webhooks, plugins } = currentTargets(config, kernel);
  return [...webhooks.map((t) => t.id), ...plugins.map((id) => `plugin:${id}`)];
}

/**
 * Delivers the outbox: claims due rows with a lease and hands each stored notice to its target,
 * a WEBHOOK_TARGETS receiver or an alert-sink plugin. Both post through the declarative
 * alert-sink runtime, which classifies the answer; here a permanent failure fails the row at
 * once and a transient one is retried with backoff up to ALERT_DELIVERY_MAX_ATTEMPTS.
 * Rows of one target are sent one after the other in the order they were written; a retry
 * waiting for its backoff lets newer notices of that target pass (documented).
 */
export class AlertDelivery {
  readonly owner = `alerts-${randomUUID()}`;
  private running = false;
  /** Drains every POLL_MS, at once when woken (a notice was written, a redelivery asked). */
  private readonly loop: RecurringTask;
  private readonly outcomes: Counter<'outcome'>;

  constructor(
    private readonly deps: { outbox: AlertOutbox; receivers: WebhookReceivers; config: WorkbenchConfig; kernel: Kernel; logger: Logger; metrics: Registry },
  ) {
    this.outcomes = new Counter({ name: 'switchboard_alert_deliveries_total', help: 'Alert delivery attempts by outcome (delivered, retry, failed).', labelNames: ['outcome'], registers: [deps.metrics] });
    this.loop = new RecurringTask({
      cadence: { everyMs: () => POLL_MS },
      task: () => this.drain(),
      onError: (err) => this.deps.logger.error({ err: (err as Error).message }, 'alert delivery failed'),
    });
  }

  start(): void {
    this.running = true;
    this.loop.start();
    this.loop.wake();
  }

  async stop(): Promise<void> {
    // a drain under way ends after the batch in hand
    this.running = false;
    await this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const rows = await this.deps.outbox.claim(this.owner, 32, LEASE_MS);
      if (!rows.length) return;
      const byTarget = new Map<string, DeliveryRow[]>();
      for (const row of rows) byTarget.set(row.target_id, [...(byTarget.get(row.target_id) ?? []), row]);
      await Promise.all(
        [...byTarget.values()].map(async (list) => {
          for (const row of list) await this.deliver(row);
        }),
      );
      if (!this.running) return;
    }
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
    const { config, kernel, receivers } = this.deps;
    if (targetId.startsWith('webhook:')) {
      const target = currentTargets(config, kernel).webhooks.find((t) => t.id === targetId);
      if (!target) return { ok: false, permanent: true, detail: 'the target is no longer in WEBHOOK_TARGETS' };
      return receivers.of(target).deliver(notice, signal);
    }
    const pluginId = targetId.slice('plugin:'.length);
    if (!kernel.isActive('alert-sink', pluginId)) return { ok: false, detail: `alert-sink plugin ${pluginId} is ${kernel.stateOf(pluginId)}` };
    try {
      return await kernel.withProvider('alert-sink', pluginId, (sink) => sink.deliver(alertOfNotice(notice), signal));
    } catch (err) {
      return { ok: false, detail: (err as Error)?.message ?? String(err) };
    }
  }
}
