import type { WorkbenchConfig } from '../../workbench-settings.js';
import type { JudgeService } from '../../../../platform/judges/judge-service.js';
import type { ConditionSource } from '../alert-engine.js';
import type { FiringCondition } from '../alert-notice.js';

const ERROR_WINDOW_MS = 15 * 60_000;

/**
 * The judges, each plugin by its id and by where it answers from (the judge contract's `served`):
 * one reached over the network alerts on its error rate over 15 minutes (warning); one served
 * locally alerts when it has not responded for ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES while it had
 * traffic in the last ALERT_SELFHOSTED_TRAFFIC_MINUTES (critical), the workbench spec's rule.
 */
export function judgeConditions(deps: { judge: JudgeService; config: WorkbenchConfig }): ConditionSource {
  /** Since when each judge served locally has not responded. */
  const silentSince = new Map<string, number>();
  return {
    name: 'judge',
    async evaluate(now) {
      const { judge, config } = deps;
      const firing: FiringCondition[] = [];
      for (const plugin of judge.watched(now)) {
        const standing = await judge.standing(plugin);
        if (standing.served === 'network') {
          const { calls, errors } = judge.stats(plugin, now - ERROR_WINDOW_MS);
          const rate = calls ? errors / calls : 0;
          if (calls < config.get('ALERT_JUDGE_MIN_CALLS') || rate < config.get('ALERT_JUDGE_ERROR_RATE')) continue;
          firing.push({
            type: 'judge_error_rate',
            category: 'judge',
            severity: 'warning',
            labels: { plugin },
            title: `${Math.round(rate * 100)}% of calls to the ${plugin} judge failed in the last 15 minutes`,
            context: { calls, errors, rate: Number(rate.toFixed(4)), threshold: config.get('ALERT_JUDGE_ERROR_RATE') },
          });
        } else if (standing.served === 'local') {
          const readiness = standing.readiness;
          const responding = standing.active && (readiness?.responding ?? readiness?.ready ?? true);
          if (responding) silentSince.delete(plugin);
          else if (!silentSince.has(plugin)) silentSince.set(plugin, now);
          const silentMs = now - (silentSince.get(plugin) ?? now);
          const traffic = judge.stats(plugin, now - config.get('ALERT_SELFHOSTED_TRAFFIC_MINUTES') * 60_000).calls;
          if (traffic === 0 || silentMs < config.get('ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES') * 60_000) continue;
          firing.push({
            type: 'judge_selfhosted_unscrapable',
            category: 'judge',
            severity: 'critical',
            labels: { plugin },
            title: `the ${plugin} judge, served on this machine, has not responded for ${Math.round(silentMs / 60_000)} minutes while it had traffic`,
            context: { unscrapable_seconds: Math.round(silentMs / 1000), calls_in_window: traffic },
          });
        }
      }
      return firing;
    },
  };
}
