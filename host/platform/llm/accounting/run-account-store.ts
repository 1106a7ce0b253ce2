import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { PlatformTables, RunAccountTable, RunRequestTable } from '../../db/schema.js';
import type { AttemptOutcome, CensusSink } from '../gateway-client.js';
import type { Estimate } from './estimate.js';
import type { NativeRunCosts } from './reconcile.js';

export type RunAccountRow = Selectable<RunAccountTable>;
export type RunRequestRow = Selectable<RunRequestTable>;
/** What ran, as the surface that owns the run names it (`index`, `schema_proposal`, `answer`, ...). */
export type RunKind = string;
export type OwnerState = 'running' | 'finished' | 'failed' | 'interrupted';

export interface NewRunAccount {
  runId: string;
  corpusId: string;
  runKind: RunKind;
  lanes: string[];
  notApplicable: Record<string, string>;
  coverageReasons: string[];
  estimate: Estimate;
  startedAt?: string;
}

/**
 * Accounting records and the request census, durable in the gateway's database. Every write
 * moves forward only (guarded updates), so a checkpoint never goes back and a record never
 * reopens.
 */
export class RunAccountStore {
  constructor(private readonly db: Kysely<PlatformTables>) {}

  async create(run: NewRunAccount): Promise<void> {
    await this.db
      .insertInto('run_accounts')
      .values({
        run_id: run.runId,
        corpus_id: run.corpusId,
        run_kind: run.runKind,
        state: 'running',
        lanes: JSON.stringify(run.lanes),
        not_applicable: JSON.stringify(run.notApplicable),
        coverage_reasons: JSON.stringify(run.coverageReasons),
        estimate: JSON.stringify(run.estimate),
        census_closed: 0,
        costs: null,
        result: null,
        error: null,
        started_at: run.startedAt ?? new Date().toISOString(),
        finished_at: null,
      })
      .execute();
  }

  async get(runId: string): Promise<RunAccountRow | undefined> {
    return this.db.selectFrom('run_accounts').selectAll().where('run_id', '=', runId).executeTakeFirst();
  }

  async latest(corpusId: string, runKind: RunKind): Promise<RunAccountRow | undefined> {
    return this.db.selectFrom('run_accounts').selectAll().where('corpus_id', '=', corpusId).where('run_kind', '=', runKind).orderBy('started_at', 'desc').orderBy('run_id', 'desc').limit(1).executeTakeFirst();
  }

  /** Admits one dispatch: the row exists before the request leaves. */
  async admit(runId: string, lane: string, model: string): Promise<string> {
    const id = randomUUID();
    await this.db.insertInto('run_requests').values({ id, run_id: runId, lane, model, state: 'admitted', http_status: null, input_tokens: null, output_tokens: null, admitted_at: Date.now(), settled_at: null }).execute();
    return id;
  }

  /** Settles an admitted request; a settled one keeps its first outcome. */
  async settle(requestId: string, outcome: AttemptOutcome): Promise<void> {
    await this.db
      .updateTable('run_requests')
      .set({
        state: outcome.state,
        http_status: outcome.state === 'failed' ? outcome.status : null,
        input_tokens: outcome.state === 'completed' ? (outcome.inputTokens ?? null) : null,
        output_tokens: outcome.state === 'completed' ? (outcome.outputTokens ?? null) : null,
        settled_at: Date.now(),
      })
      .where('id', '=', requestId)
      .where('state', '=', 'admitted')
      .execute();
  }

  /** A census sink bound to one run, for in-process owners. */
  sink(runId: string): CensusSink {
    return { admit: (lane, model) => this.admit(runId, lane, model), settle: (id, outcome) => this.settle(id, outcome) };
  }

  async requests(runId: string): Promise<RunRequestRow[]> {
    return this.db.selectFrom('run_requests').selectAll().where('run_id', '=', runId).orderBy('admitted_at').execute();
  }

  /** The owner closed its census: every request it admitted was settled. Never undone. */
  async closeCensus(runId: string): Promise<void> {
    await this.db.updateTable('run_accounts').set({ census_closed: 1 }).where('run_id', '=', runId).execute();
  }

  /** Ends the owner; an ended record keeps its first outcome. */
  async finish(runId: string, state: Exclude<OwnerState, 'running'>, error: string | null = null, result?: unknown): Promise<void> {
    await this.db
      .updateTable('run_accounts')
      .set({ state, error, finished_at: new Date().toISOString(), ...(result !== undefined ? { result: JSON.stringify(result) } : {}) })
      .where('run_id', '=', runId)
      .where('state', '=', 'running')
      .execute();
  }

  /** Owners that were running when this process (or, with `runIds`, a dead worker) stopped. */
  async interruptRunning(runIds?: string[], error = 'the gateway stopped during the run'): Promise<void> {
    let q = this.db.updateTable('run_accounts').set({ state: 'interrupted', error, finished_at: new Date().toISOString() }).where('state', '=', 'running');
    if (runIds) {
      if (!runIds.length) return;
      q = q.where('run_id', 'in', runIds);
    }
    await q.execute();
  }

  async saveCosts(runId: string, costs: NativeRunCosts): Promise<void> {
    await this.db.updateTable('run_accounts').set({ costs: JSON.stringify(costs) }).where('run_id', '=', runId).execute();
  }

  async markDeleted(corpusId: string): Promise<void> {
    const deleted_at = new Date().toISOString();
    await this.db.insertInto('corpus_deletions').values({ corpus_id: corpusId, deleted_at }).onConflict((oc) => oc.column('corpus_id').doUpdateSet({ deleted_at })).execute();
  }

  async undelete(corpusId: string): Promise<void> {
    await this.db.deleteFrom('corpus_deletions').where('corpus_id', '=', corpusId).execute();
  }

  async isDeleted(corpusId: string): Promise<boolean> {
    return !!(await this.db.selectFrom('corpus_deletions').select('corpus_id').where('corpus_id', '=', corpusId).executeTakeFirst());
  }
}
