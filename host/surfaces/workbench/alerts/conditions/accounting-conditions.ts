import type { Kysely } from 'kysely';
import type { WorkbenchConfig } from '../../workbench-settings.js';
import type { PlatformTables } from '../../../../platform/db/schema.js';
import type { ConditionSource } from '../alert-engine.js';
import type { FiringCondition } from '../alert-notice.js';

/**
 * Run accounting (warning): an index or schema-proposal run that ended more than
 * ALERT_RUN_COSTS_MINUTES ago and whose costs are still not complete: never reconciled to a
 * final state (pending), or reconciled `incomplete`. One alert per run; it clears when a
 * reconciliation completes.
 */
export function accountingConditions(deps: { db: Kysely<PlatformTables>; config: WorkbenchConfig }): ConditionSource {
  return {
    name: 'run_accounting',
    async evaluate(now) {
      const windowMs = deps.config.get('ALERT_RUN_COSTS_MINUTES') * 60_000;
      const ended = new Date(now - windowMs).toISOString();
      const rows = await deps.db
        .selectFrom('run_accounts')
        .select(['run_id', 'corpus_id', 'run_kind', 'state', 'costs', 'finished_at'])
        .where('run_kind', 'in', ['index', 'schema_proposal'])
        .where('finished_at', 'is not', null)
        .where('finished_at', '<=', ended)
        .execute();
      const firing: FiringCondition[] = [];
      for (const row of rows) {
        const costs = row.costs ? (JSON.parse(row.costs) as { state?: string; reasons?: unknown[] }) : undefined;
        const state = costs?.state ?? 'pending';
        if (state === 'complete') continue;
        firing.push({
          type: 'run_costs_unsettled',
          category: 'accounting',
          severity: 'warning',
          labels: { run_id: row.run_id },
          title: `the costs of ${row.run_kind} run ${row.run_id} of "${row.corpus_id}" are still ${state}`,
          context: { run_id: row.run_id, corpus_id: row.corpus_id, run_kind: row.run_kind, costs_state: state, reasons: costs?.reasons ?? [], finished_at: row.finished_at },
        });
      }
      return firing;
    },
  };
}
