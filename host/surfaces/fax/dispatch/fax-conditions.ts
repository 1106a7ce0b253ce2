import type { Kysely } from 'kysely';
import type { FaxConfig } from '../fax-settings.js';
import type { FaxTables } from '../fax-tables.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { ConditionSource, FiringCondition } from '../../../platform/ports/alert-conditions.js';

/** Fax failure rate over a window (critical) and dispatch backlog age (warning), read from the job table. */
export function faxConditions(deps: { db: Kysely<FaxTables>; config: FaxConfig }): ConditionSource {
  return {
    name: 'fax',
    async evaluate(now) {
      const { db, config } = deps;
      const firing: FiringCondition[] = [];
      const windowMs = config.get('ALERT_FAX_FAILURE_WINDOW_MINUTES') * 60_000;
      const since = new Date(now - windowMs).toISOString();
      const finished = await db
        .selectFrom('fax_jobs')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', 'in', ['SUCCESS', 'FAILED'])
        .where('finished_at', '>=', since)
        .groupBy('status')
        .execute();
      const count = (status: string) => Number(finished.find((r) => r.status === status)?.n ?? 0);
      const failed = count('FAILED');
      const total = failed + count('SUCCESS');
      const rate = total ? failed / total : 0;
      if (total >= config.get('ALERT_FAX_FAILURE_MIN_JOBS') && rate >= config.get('ALERT_FAX_FAILURE_RATE')) {
        firing.push({
          type: 'fax_failure_rate',
          category: 'fax',
          severity: 'critical',
          labels: {},
          title: `${Math.round(rate * 100)}% of faxes failed in the last ${config.get('ALERT_FAX_FAILURE_WINDOW_MINUTES')} minutes`,
          context: { failed, finished: total, rate: Number(rate.toFixed(4)), threshold: config.get('ALERT_FAX_FAILURE_RATE') },
        });
      }
      const oldest = await db
        .selectFrom('fax_jobs')
        .select((eb) => eb.fn.min<string>('created_at').as('created_at'))
        .where('dispatch_state', 'in', ['pending', 'uncertain', 'sending'])
        .where('status', 'not in', ['SUCCESS', 'FAILED', 'disabled'])
        .executeTakeFirst();
      if (oldest?.created_at) {
        const ageMs = now - Date.parse(oldest.created_at);
        const limitMs = config.get('ALERT_FAX_BACKLOG_MINUTES') * 60_000;
        if (ageMs >= limitMs) {
          firing.push({
            type: 'fax_backlog_age',
            category: 'fax',
            severity: 'warning',
            labels: {},
            title: `the oldest fax waiting to be sent is ${Math.round(ageMs / 60_000)} minutes old`,
            context: { oldest_age_seconds: Math.round(ageMs / 1000), threshold_minutes: config.get('ALERT_FAX_BACKLOG_MINUTES') },
          });
        }
      }
      return firing;
    },
  };
}

/**
 * A fax provider plugin that was active and no longer is (warning), one alert per plugin.
 * Plugins that never became active (waiting for settings on a fresh install) do not fire.
 */
export function providerLeftActiveCondition(deps: { kernel: Kernel }): ConditionSource {
  const wasActive = new Set<string>();
  return {
    name: 'fax_provider_inactive',
    evaluate() {
      const firing: FiringCondition[] = [];
      const views = deps.kernel.list().filter((p) => p.kinds.includes('fax'));
      for (const view of views) {
        if (view.state === 'active') {
          wasActive.add(view.id);
          continue;
        }
        if (!wasActive.has(view.id)) continue;
        firing.push({
          type: 'fax_provider_inactive',
          category: 'fax',
          severity: 'warning',
          labels: { plugin: view.id },
          title: `fax provider ${view.id} left active: ${view.state}`,
          context: { plugin: view.id, state: view.state, last_error: view.last_error },
        });
      }
      // A plugin removed on purpose is forgotten, not reported.
      for (const id of [...wasActive]) if (!views.some((v) => v.id === id)) wasActive.delete(id);
      return firing;
    },
  };
}
