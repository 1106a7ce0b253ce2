import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { SearchTables, EvaluationJobTable } from '../search-tables.js';
import type { Dialect } from '../../../platform/db/database.js';
import { interruptOrphansAtStart, interruptStale } from '../run-heartbeat.js';
import type { EvalReport } from './eval-runner.js';

export type EvalJob = Selectable<EvaluationJobTable>;

/**
 * Evaluation runs as durable rows (table evaluation_jobs): progress while the questions run, the
 * report once finished, and an interrupted state when the gateway stopped during the run.
 */
export class EvalJobStore {
  constructor(
    private readonly db: Kysely<SearchTables>,
    private readonly dialect: Dialect,
  ) {}

  /** At start: interrupts the runs a gateway that stopped left running (see interruptOrphansAtStart). */
  async recoverAtStart(now = Date.now()): Promise<void> {
    await interruptOrphansAtStart(this.db, this.dialect, 'evaluation_jobs', now);
  }

  async create(questions: number, name: string | undefined, baseline: boolean): Promise<EvalJob> {
    const now = new Date();
    const row: EvalJob = { id: randomUUID(), state: 'running', questions, done: 0, name: name ?? null, baseline: baseline ? 1 : 0, report: null, error: null, started_at: now.toISOString(), finished_at: null, heartbeat_at: now.getTime() };
    await this.db.insertInto('evaluation_jobs').values(row).execute();
    return row;
  }

  /** The row; a running row nobody reported on for STALE_HEARTBEAT_MS reads as interrupted. */
  async get(id: string, now = Date.now()): Promise<EvalJob | undefined> {
    await interruptStale(this.db, 'evaluation_jobs', 'id', id, now);
    return this.db.selectFrom('evaluation_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async progress(id: string, done: number): Promise<void> {
    await this.db.updateTable('evaluation_jobs').set({ done, heartbeat_at: Date.now() }).where('id', '=', id).where('state', '=', 'running').execute();
  }

  /** Ends a running row; a row already ended keeps its outcome. */
  async finish(id: string, outcome: { report: EvalReport } | { state: 'failed' | 'interrupted'; error: string }): Promise<void> {
    const now = Date.now();
    const set =
      'report' in outcome
        ? { state: 'finished', done: outcome.report.questions.length, report: JSON.stringify(outcome.report), error: null }
        : { state: outcome.state, error: outcome.error };
    await this.db
      .updateTable('evaluation_jobs')
      .set({ ...set, finished_at: new Date(now).toISOString(), heartbeat_at: now })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .execute();
  }
}
