import type { Kernel } from '../../../../../core/kernel/kernel.js';
import type { WorkbenchConfig } from '../../workbench-settings.js';
import type { JudgeService } from '../../judges/judge-service.js';
import type { ConditionSource } from '../alert-engine.js';
import type { FiringCondition } from '../alert-notice.js';

const ERROR_WINDOW_MS = 15 * 60_000;

/**
 * The judges: the hosted judge's error rate over 15 minutes (warning), and the self-hosted judge
 * unscrapable for ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES while it had traffic in the last
 * ALERT_SELFHOSTED_TRAFFIC_MINUTES (critical), the workbench spec's rule.
 */
export function judgeConditions(deps: { judge: JudgeService; kernel: Kernel; config: WorkbenchConfig }): ConditionSource {
  let unscrapableSince: number | undefined;
  return {
    name: 'judge',
    async evaluate(now) {
      const { judge, kernel, config } = deps;
      const firing: FiringCondition[] = [];
      const hosted = judge.stats('hosted', now - ERROR_WINDOW_MS);
      const rate = hosted.calls ? hosted.errors / hosted.calls : 0;
      if (hosted.calls >= config.get('ALERT_JUDGE_MIN_CALLS') && rate >= config.get('ALERT_JUDGE_ERROR_RATE')) {
        firing.push({
          type: 'judge_error_rate',
          category: 'judge',
          severity: 'warning',
          labels: { provider: 'hosted' },
          title: `${Math.round(rate * 100)}% of hosted judge calls failed in the last 15 minutes`,
          context: { calls: hosted.calls, errors: hosted.errors, rate: Number(rate.toFixed(4)), threshold: config.get('ALERT_JUDGE_ERROR_RATE') },
        });
      }
      const selfhosted = judge.stats('selfhosted', now - config.get('ALERT_SELFHOSTED_TRAFFIC_MINUTES') * 60_000);
      const id = judge.pluginIdFor('selfhosted');
      let scrapable = false;
      if (id !== undefined && kernel.isActive('judge', id)) {
        const health = (await kernel.checkHealth(id))[id];
        scrapable = health?.info?.reachable === true;
      }
      if (scrapable) unscrapableSince = undefined;
      else unscrapableSince ??= now;
      const downMs = unscrapableSince === undefined ? 0 : now - unscrapableSince;
      if (selfhosted.calls > 0 && downMs >= config.get('ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES') * 60_000) {
        firing.push({
          type: 'judge_selfhosted_unscrapable',
          category: 'judge',
          severity: 'critical',
          labels: { provider: 'selfhosted' },
          title: `the self-hosted judge has been unscrapable for ${Math.round(downMs / 60_000)} minutes while it had traffic`,
          context: { unscrapable_seconds: Math.round(downMs / 1000), calls_in_window: selfhosted.calls },
        });
      }
      return firing;
    },
  };
}
