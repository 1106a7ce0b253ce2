import type { Kernel } from '../../../core/kernel/kernel.js';
import type { ConditionSource, FiringCondition } from '../ports/alert-conditions.js';

/**
 * Fires while an isolated plugin is down after a crash or a limit (memory, call deadline, a
 * blocked event loop): the kernel marks it failed with `plugin crashed ...` until a restart
 * or a fix brings a generation back.
 */
export function pluginCrashedCondition(deps: { kernel: Kernel }): ConditionSource {
  return {
    name: 'plugin_crashed',
    evaluate() {
      const firing: FiringCondition[] = [];
      for (const view of deps.kernel.list()) {
        if (view.state !== 'failed' || !view.last_error?.startsWith('plugin crashed')) continue;
        firing.push({
          type: 'plugin_crashed',
          category: 'plugins',
          severity: 'critical',
          labels: { plugin: view.id },
          title: `plugin ${view.id} crashed: ${view.last_error}`,
          context: { plugin: view.id, state: view.state, last_error: view.last_error },
        });
      }
      return firing;
    },
  };
}
