import type { Kysely, Selectable } from 'kysely';
import { maskNumbers } from '../../../../core/sdk/index.js';
import type { FaxTables, FaxJobAttemptTable } from '../fax-tables.js';

export type FaxJobAttemptRow = Selectable<FaxJobAttemptTable>;

/** How an attempt ended: the provider's final word, or a send it certainly did not take. */
export type AttemptOutcome = 'SUCCESS' | 'FAILED' | 'not_accepted';

export interface AttemptEnd {
  outcome: AttemptOutcome;
  error?: string | undefined;
  lineFailure?: string | undefined;
  providerSid?: string | undefined;
}

/**
 * The sends of each fax job, one row per attempt. Writes take the caller's connection (a
 * transaction of the job store), so an attempt moves with its job or not at all.
 */
export class FaxJobAttempts {
  constructor(private readonly db: Kysely<FaxTables>) {}

  with(db: Kysely<FaxTables>): FaxJobAttempts {
    return new FaxJobAttempts(db);
  }

  async start(jobId: string, attempt: number, now: number): Promise<void> {
    await this.db
      .insertInto('fax_job_attempts')
      .values({ job_id: jobId, attempt, started_at: new Date(now).toISOString(), ended_at: null, outcome: null, line_failure: null, error: null, provider_sid: null })
      .onConflict((oc) => oc.columns(['job_id', 'attempt']).doNothing())
      .execute();
  }

  /** An attempt that ended as it began (the backend was not active): nothing reached a provider. */
  async recordRefused(jobId: string, attempt: number, error: string, now: number): Promise<void> {
    const iso = new Date(now).toISOString();
    await this.db
      .insertInto('fax_job_attempts')
      .values({ job_id: jobId, attempt, started_at: iso, ended_at: iso, outcome: 'not_accepted', line_failure: null, error: maskNumbers(error), provider_sid: null })
      .onConflict((oc) => oc.columns(['job_id', 'attempt']).doNothing())
      .execute();
  }

  /** Notes on the open attempt what is known while it runs (the provider's id, an uncertain send). */
  async note(jobId: string, facts: { providerSid?: string | undefined; error?: string | undefined }): Promise<void> {
    const set: Partial<FaxJobAttemptTable> = {};
    if (facts.providerSid) set.provider_sid = facts.providerSid;
    if (facts.error) set.error = maskNumbers(facts.error);
    if (!Object.keys(set).length) return;
    await this.db.updateTable('fax_job_attempts').set(set).where('job_id', '=', jobId).where('ended_at', 'is', null).execute();
  }

  /** Ends the job's open attempt (there is at most one). */
  async end(jobId: string, end: AttemptEnd, now: number): Promise<void> {
    const set: Partial<FaxJobAttemptTable> = { ended_at: new Date(now).toISOString(), outcome: end.outcome, line_failure: end.lineFailure ?? null };
    if (end.error !== undefined) set.error = maskNumbers(end.error);
    else if (end.outcome === 'SUCCESS') set.error = null;
    if (end.providerSid) set.provider_sid = end.providerSid;
    await this.db.updateTable('fax_job_attempts').set(set).where('job_id', '=', jobId).where('ended_at', 'is', null).execute();
  }

  list(jobId: string): Promise<FaxJobAttemptRow[]> {
    return this.db.selectFrom('fax_job_attempts').selectAll().where('job_id', '=', jobId).orderBy('attempt').execute();
  }

  /** Attempts the line answered busy, unanswered or failed: the dials the retry policy counts. */
  async lineFailures(jobId: string): Promise<number> {
    const row = await this.db
      .selectFrom('fax_job_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('job_id', '=', jobId)
      .where('line_failure', 'is not', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * True when `providerSid` is the provider's id of an earlier attempt than the latest: a late
   * word about a fax that was already redialled, which must not touch the redial.
   */
  async isSuperseded(jobId: string, providerSid: string): Promise<boolean> {
    const rows = await this.db.selectFrom('fax_job_attempts').select(['attempt', 'provider_sid']).where('job_id', '=', jobId).execute();
    const latest = Math.max(0, ...rows.map((r) => r.attempt));
    return rows.some((r) => r.provider_sid === providerSid && r.attempt < latest);
  }
}
