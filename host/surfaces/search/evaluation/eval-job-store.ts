import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, EvaluationJobTable } from '../../../platform/db/schema.js';
import type { Dialect } from '../../../platform/db/database.js';
import type { EvalReport } from './eval-runner.js';

export type EvalJob = Selectable<EvaluationJobTable>;

/** A running evaluation whose owner has not reported for this long was left by a gateway that died. */
export const STALE_EVAL_MS = 30_000;

/**
 * Evaluation runs as durable rows (table evaluation_jobs): progress while the questions run, the
 * report once finished, and an interrupted state when the gateway stopped during the run.
 */
export class EvalJobStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** At start: with SQLite every running row is an orphan; with PostgreSQL only stale ones are. */
  async recoverAtStart(now = Date.now()): Promise<void> {
    let q = this.db.updateTable('evaluation_jobs').set({ state: 'interrupted', error: 'the gateway stopped during the run', finished_at: new Date(now).toISOString() }).where('state', '=', 'running');
    if (this.dialect === 'postgres') q = q.where('heartbeat_at', '<', now - STALE_EVAL_MS);
    await q.execute();
  }

  async create(questions: number, name: string | undefined, baseline: boolean): Promise<EvalJob> {
    const now = new Date();
    const row: EvalJob = { id: randomUUID(), state: 'running', questions, done: 0, name: name ?? null, baseline: baseline ? 1 : 0, report: null, error: null, started_at: now.toISOString(), finished_at: null, heartbeat_at: now.getTime() };
    await this.db.insertInto('evaluation_jobs').values(row).execute();
    return row;
  }

  /** The row; a running row nobody reported on for STALE_EVAL_MS reads as interrupted. */
  async get(id: string, now = Date.now()): Promise<EvalJob | undefined> {
    await this.db
      .updateTable('evaluation_jobs')
      .set({ state: 'interrupted', error: 'the run stopped reporting (its gateway died)', finished_at: new Date(now).toISOString() })
      .where('id', '=', id)
      .where('state', '=', 'running')
      .where('heartbeat_at', '<', now - STALE_EVAL_MS)
      .execute();
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
