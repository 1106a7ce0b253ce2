import type { SearchConfig } from '../search-settings.js';
import { CANARY_METRICS, type EvalCanaries } from './eval-canaries.js';
import type { ConditionSource, FiringCondition } from '../../../platform/ports/alert-conditions.js';

/**
 * Evaluation regression (warning): the latest run of a named evaluation (a canary, or a model
 * or reranker version) has MRR@10, nDCG@10 or MAP below its saved baseline by more than
 * ALERT_EVAL_DROP. It clears when a later run is back within the threshold or a new baseline
 * is saved.
 */
export function evaluationConditions(deps: { canaries: EvalCanaries; config: SearchConfig }): ConditionSource {
  return {
    name: 'evaluation',
    async evaluate() {
      const drop = deps.config.get('ALERT_EVAL_DROP');
      const firing: FiringCondition[] = [];
      for (const { name, baseline, latest } of await deps.canaries.latestAgainstBaseline()) {
        const deltas = Object.fromEntries(CANARY_METRICS.map((m) => [m, Math.round((latest.summary[m] - baseline.summary[m]) * 10_000) / 10_000]));
        const worst = CANARY_METRICS.filter((m) => -deltas[m]! > drop);
        if (!worst.length) continue;
        firing.push({
          type: 'eval_regression',
          category: 'evaluation',
          severity: 'warning',
          labels: { name },
          title: `evaluation "${name}" regressed against its baseline: ${worst.map((m) => `${m} ${deltas[m]}`).join(', ')}`,
          context: {
            name,
            threshold: drop,
            deltas,
            baseline: Object.fromEntries(CANARY_METRICS.map((m) => [m, baseline.summary[m]])),
            latest: Object.fromEntries(CANARY_METRICS.map((m) => [m, latest.summary[m]])),
            baseline_at: new Date(baseline.created_at).toISOString(),
            latest_at: new Date(latest.created_at).toISOString(),
          },
        });
      }
      return firing;
    },
  };
}
