import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { WorkbenchConfig } from '../workbench-settings.js';
import type { ClusterLeases } from '../../../platform/db/cluster-leases.js';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';
import type { WorkbenchTables, AlertActiveTable } from '../workbench-tables.js';
import { SEVERITY_LABELS, alertIdOf, type AlertNotice, type FiringCondition } from './alert-notice.js';
import type { AlertOutbox } from './alert-outbox.js';
import type { ConditionSource } from '../../../platform/ports/alert-conditions.js';
export type { ConditionSource };


/**
 * The alert engine: evaluates the conditions, keeps one durable row per alert instance, and
 * turns changes into notices: fired once, repeated every ALERT_REPEAT_MINUTES while firing,
 * resolved once when it clears (with ALERT_INCLUDE_RESOLVED). Notices pass the severity filter
 * and are written to the outbox for every target. Every notice key is derived from the row, so
 * instances that evaluate the same condition write each notice once; besides, the scheduled
 * evaluation runs on one instance of a cluster at a time (lease `alerts.evaluate`).
 */
export class AlertEngine {
  private readonly loop = new RecurringTask({
    cadence: { pauseMs: () => this.deps.config.get('ALERT_EVAL_INTERVAL_SECONDS') * 1000 },
    task: () => this.deps.leases.exclusive('alerts.evaluate', () => this.tick())(),
    onError: (err) => this.deps.logger.error({ err: (err as Error).message }, 'alert evaluation failed'),
  });
  private ticking: Promise<void> | undefined;
  private readonly filtered: Counter<'severity' | 'reason'>;
  private readonly notices: Counter<'type' | 'status'>;
  private warnedSeverities = '';

  constructor(
    private readonly deps: {
      db: Kysely<WorkbenchTables>;
      outbox: AlertOutbox;
      config: WorkbenchConfig;
      logger: Logger;
      metrics: Registry;
      leases: ClusterLeases;
      sources: readonly ConditionSource[];
      /** Ids of every target a notice goes to now. */
      targets: () => string[];
      /** Called when notices were written, so delivery starts at once. */
      onEnqueued: () => void;
    },
  ) {
    this.filtered = new Counter({ name: 'switchboard_alerts_filtered_total', help: 'Alert notices not delivered by the severity filter, by severity and reason (not_selected, unknown_severity).', labelNames: ['severity', 'reason'], registers: [deps.metrics] });
    this.notices = new Counter({ name: 'switchboard_alerts_notices_total', help: 'Alert notices written to the outbox, by type and status.', labelNames: ['type', 'status'], registers: [deps.metrics] });
  }

  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.ticking;
  }

  /** One evaluation; runs alone (a tick still running is awaited, not doubled). */
  tick(now = Date.now()): Promise<void> {
    this.ticking ??= this.evaluate(now).finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  async active(): Promise<AlertActiveTable[]> {
    return this.deps.db.selectFrom('alerts_active').selectAll().where('status', '=', 'firing').orderBy('fired_at').execute();
  }

  private async evaluate(now: number): Promise<void> {
    const { db, logger } = this.deps;
    const holding = new Map<string, FiringCondition>();
    for (const source of this.deps.sources) {
      try {
        for (const condition of await source.evaluate(now)) holding.set(alertIdOf(condition.type, condition.labels), condition);
      } catch (err) {
        logger.warn({ condition: source.name, err: (err as Error).message }, 'alert condition could not be evaluated');
      }
    }
    let enqueued = 0;
    for (const [id, condition] of holding) {
      const row = await this.markFiring(id, condition, now);
      const repeatMs = this.deps.config.get('ALERT_REPEAT_MINUTES') * 60_000;
      // Another instance may have fired it a moment after this tick began: never a negative repeat.
      const repeat = Math.max(0, Math.floor((now - Number(row.fired_at)) / repeatMs));
      enqueued += await this.notify(this.notice(id, condition, 'firing', row.fired_at, null, now), `firing:${row.fired_at}:${repeat}`);
    }
    for (const row of await this.active()) {
      if (holding.has(row.id)) continue;
      const cleared = await db.updateTable('alerts_active').set({ status: 'resolved', resolved_at: now, updated_at: now }).where('id', '=', row.id).where('status', '=', 'firing').where('fired_at', '=', row.fired_at).executeTakeFirst();
      if (Number(cleared.numUpdatedRows) !== 1 || !this.deps.config.get('ALERT_INCLUDE_RESOLVED')) continue;
      const context = JSON.parse(row.context) as Record<string, unknown>;
      const condition: FiringCondition = { type: row.type, category: context.category as FiringCondition['category'], severity: row.severity, labels: JSON.parse(row.labels), title: row.title, context };
      enqueued += await this.notify(this.notice(row.id, condition, 'resolved', row.fired_at, now, now), `resolved:${row.fired_at}`);
    }
    if (enqueued) this.deps.onEnqueued();
  }

  /** The row of a firing instance: written on first sight, or fired again after it resolved. */
  private async markFiring(id: string, condition: FiringCondition, now: number): Promise<AlertActiveTable> {
    const { db } = this.deps;
    const values = {
      id,
      type: condition.type,
      severity: condition.severity,
      labels: JSON.stringify(condition.labels),
      title: condition.title,
      context: JSON.stringify({ ...condition.context, category: condition.category }),
      status: 'firing',
      fired_at: now,
      resolved_at: null,
      updated_at: now,
    };
    await db.insertInto('alerts_active').values(values).onConflict((oc) => oc.column('id').doNothing()).execute();
    await db
      .updateTable('alerts_active')
      .set({ status: 'firing', fired_at: now, resolved_at: null, updated_at: now, title: values.title, context: values.context, severity: values.severity })
      .where('id', '=', id)
      .where('status', '=', 'resolved')
      .execute();
    await db.updateTable('alerts_active').set({ title: values.title, context: values.context, updated_at: now }).where('id', '=', id).where('status', '=', 'firing').execute();
    return (await db.selectFrom('alerts_active').selectAll().where('id', '=', id).executeTakeFirstOrThrow()) as AlertActiveTable;
  }

  private notice(id: string, c: FiringCondition, status: 'firing' | 'resolved', firedAt: number, endsAt: number | null, now: number): AlertNotice {
    return {
      id,
      event_id: '',
      type: c.type,
      category: c.category,
      severity: c.severity,
      status,
      title: c.title,
      labels: c.labels,
      starts_at: new Date(firedAt).toISOString(),
      ends_at: endsAt === null ? null : new Date(endsAt).toISOString(),
      sent_at: new Date(now).toISOString(),
      context: Object.fromEntries(Object.entries(c.context).filter(([k]) => k !== 'category')),
    };
  }

  /**
   * ALERT_NOTIFY_SEVERITIES on one notice: whether it may be delivered. A drop is counted, and a
   * severity no filter value can name is logged too (never silent).
   */
  severityFilter(notice: AlertNotice): { pass: true } | { pass: false; reason: 'not_selected' | 'unknown_severity'; detail: string } {
    const wanted = this.selectedSeverities();
    if (!(SEVERITY_LABELS as readonly string[]).includes(notice.severity)) {
      this.filtered.inc({ severity: notice.severity, reason: 'unknown_severity' });
      const detail = `alert severity "${notice.severity}" is not one of ${SEVERITY_LABELS.join(', ')}; not delivered`;
      this.deps.logger.warn({ alert: notice.id, severity: notice.severity }, detail);
      return { pass: false, reason: 'unknown_severity', detail };
    }
    if (!wanted.includes(notice.severity)) {
      this.filtered.inc({ severity: notice.severity, reason: 'not_selected' });
      return { pass: false, reason: 'not_selected', detail: `severity "${notice.severity}" is not selected by ALERT_NOTIFY_SEVERITIES (${wanted.join(',') || 'none'}); not delivered` };
    }
    return { pass: true };
  }

  /** The severity filter, then the outbox. Returns the rows written. */
  private async notify(notice: AlertNotice, eventKey: string): Promise<number> {
    if (!this.severityFilter(notice).pass) return 0;
    notice.event_id = `${notice.id}/${eventKey}`;
    const added = await this.deps.outbox.enqueue(notice, eventKey, this.deps.targets());
    if (added) this.notices.inc({ type: notice.type, status: notice.status });
    return added;
  }

  private selectedSeverities(): string[] {
    const raw = this.deps.config.get('ALERT_NOTIFY_SEVERITIES');
    const values = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const unknown = values.filter((v) => !(SEVERITY_LABELS as readonly string[]).includes(v));
    if (unknown.length && raw !== this.warnedSeverities) {
      this.warnedSeverities = raw;
      this.deps.logger.warn({ unknown }, `ALERT_NOTIFY_SEVERITIES names ${unknown.join(', ')}, which no alert emits (labels: ${SEVERITY_LABELS.join(', ')}); alerts of those would never be delivered`);
    }
    return values;
  }
}
