import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { WorkbenchTables, LabRunTable } from '../workbench-tables.js';
import { isSystemOneError } from '../../../../core/sdk/judge/index.js';
import type { JudgeService } from '../../../platform/judges/judge-service.js';
import { GATING_QUESTIONS, LAB_QUESTIONS, type LabRow } from './lab-questions.js';

export interface LabRequest {
  rows: LabRow[];
  /** Minimum probability of yes of each gating question. */
  gate_min: number;
}

export interface LabRowResult {
  index: number;
  scores: Record<keyof typeof LAB_QUESTIONS, number>;
  /** Both gating questions reached gate_min. */
  passed: boolean;
}

export interface LabRunRecord {
  id: string;
  state: 'running' | 'succeeded' | 'failed';
  attempts: number;
  request: LabRequest;
  results: LabRowResult[] | null;
  summary: { rows: number; passed: number; cued: number } | null;
  error: { outcome: string; detail: string } | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** The synthetic-data lab: judges grounded rows; a judge failure fails the run with its typed reason. */
export class LabRuns {
  constructor(private readonly deps: { db: Kysely<WorkbenchTables>; judge: JudgeService }) {}

  async start(request: LabRequest): Promise<LabRunRecord> {
    const now = new Date().toISOString();
    const id = randomUUID();
    await this.deps.db
      .insertInto('lab_runs')
      .values({ id, state: 'running', request: JSON.stringify(request), result: null, error_outcome: null, error_detail: null, attempts: 0, created_at: now, updated_at: now, finished_at: null })
      .execute();
    return this.execute(id, request);
  }

  /** Replays the request stored on the run; only a failed run can be retried. */
  async retry(id: string): Promise<LabRunRecord | 'not_found' | 'not_failed'> {
    const row = await this.row(id);
    if (!row) return 'not_found';
    if (row.state !== 'failed') return 'not_failed';
    const claimed = await this.deps.db
      .updateTable('lab_runs')
      .set({ state: 'running', updated_at: new Date().toISOString(), finished_at: null })
      .where('id', '=', id)
      .where('state', '=', 'failed')
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) !== 1) return 'not_failed';
    return this.execute(id, JSON.parse(row.request) as LabRequest);
  }

  async get(id: string): Promise<LabRunRecord | undefined> {
    const row = await this.row(id);
    return row ? toRecord(row) : undefined;
  }

  private async execute(id: string, request: LabRequest): Promise<LabRunRecord> {
    let results: LabRowResult[] | null = null;
    let error: { outcome: string; detail: string } | null = null;
    try {
      results = await Promise.all(
        request.rows.map(async (row, index) => {
          const answer = await this.deps.judge.ask({ state: { question: row.question, quote: row.quote, expected_answer: row.expected_answer }, questions: LAB_QUESTIONS }, 'lab');
          const scores = answer.answers as LabRowResult['scores'];
          return { index, scores, passed: GATING_QUESTIONS.every((q) => scores[q] >= request.gate_min) };
        }),
      );
    } catch (err) {
      error = isSystemOneError(err) ? { outcome: err.outcome, detail: err.message } : { outcome: 'unavailable', detail: (err as Error)?.message ?? String(err) };
    }
    const now = new Date().toISOString();
    await this.deps.db
      .updateTable('lab_runs')
      .set({
        state: error ? 'failed' : 'succeeded',
        result: results ? JSON.stringify(results) : null,
        error_outcome: error?.outcome ?? null,
        error_detail: error?.detail ?? null,
        attempts: (eb) => eb('attempts', '+', 1),
        updated_at: now,
        finished_at: now,
      })
      .where('id', '=', id)
      .execute();
    return (await this.get(id))!;
  }

  private async row(id: string): Promise<LabRunTable | undefined> {
    return this.deps.db.selectFrom('lab_runs').selectAll().where('id', '=', id).executeTakeFirst();
  }
}

function toRecord(row: LabRunTable): LabRunRecord {
  const results = row.result ? (JSON.parse(row.result) as LabRowResult[]) : null;
  return {
    id: row.id,
    state: row.state as LabRunRecord['state'],
    attempts: row.attempts,
    request: JSON.parse(row.request) as LabRequest,
    results,
    summary: results
      ? { rows: results.length, passed: results.filter((r) => r.passed).length, cued: results.filter((r) => r.scores.answer_cued_in_question >= 0.5).length }
      : null,
    error: row.error_outcome ? { outcome: row.error_outcome, detail: row.error_detail ?? '' } : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
    finished_at: row.finished_at,
  };
}
