import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SearchTables } from '../search-tables.js';
import type { EvalSummary } from './metrics.js';

/** The figures a regression is judged on. */
export const CANARY_METRICS = ['mrr_at_10', 'ndcg_at_10', 'map'] as const;

export interface CanaryRun {
  name: string;
  summary: EvalSummary;
  baseline: boolean;
  created_at: number;
}

/**
 * Named evaluation runs: a canary (the same golden set run on a schedule) or a version of a
 * model or reranker. A run saved as the baseline is what later runs of that name are judged
 * against; the alert engine compares the latest run with it.
 */
export class EvalCanaries {
  constructor(private readonly db: Kysely<SearchTables>) {}

  async record(name: string, summary: EvalSummary, asBaseline: boolean, now = Date.now()): Promise<void> {
    await this.db.insertInto('eval_runs').values({ id: randomUUID(), name, summary: JSON.stringify(summary), baseline: asBaseline ? 1 : 0, created_at: now }).execute();
  }

  /** For each name with a baseline: the baseline and the latest run after it (if any). */
  async latestAgainstBaseline(): Promise<Array<{ name: string; baseline: CanaryRun; latest: CanaryRun }>> {
    const rows = await this.db.selectFrom('eval_runs').selectAll().orderBy('created_at').orderBy('id').execute();
    const byName = new Map<string, { baseline?: CanaryRun; latest?: CanaryRun }>();
    for (const row of rows) {
      const run: CanaryRun = { name: row.name, summary: JSON.parse(row.summary) as EvalSummary, baseline: Number(row.baseline) === 1, created_at: Number(row.created_at) };
      const entry = byName.get(row.name) ?? {};
      if (run.baseline) {
        entry.baseline = run;
        delete entry.latest;
      } else if (entry.baseline) {
        entry.latest = run;
      }
      byName.set(row.name, entry);
    }
    return [...byName].flatMap(([name, e]) => (e.baseline && e.latest ? [{ name, baseline: e.baseline, latest: e.latest }] : []));
  }
}
