import type { Kysely, Selectable } from 'kysely';
import { maskNumbers, type FaxLineFailure, type FaxStatus } from '../../../../core/sdk/index.js';
import type { FaxTables, FaxJobTable } from '../fax-tables.js';
import type { Dialect } from '../../../platform/db/database.js';
import { leaseFree, renewLeases, takeLeases } from '../../../platform/db/leases.js';
import { PreparedQuery } from '../../../platform/db/prepared-query.js';
import { isFinal, predecessorsOf, type DispatchState } from './job-states.js';
import { FaxJobAttempts } from './job-attempts.js';

export type FaxJobRow = Selectable<FaxJobTable>;

export interface NewFaxJob {
  id: string;
  to: string;
  backend: string;
  pdfKey: string;
  pages: number;
  sourceType: string;
  sizeBytes: number;
  disabled: boolean;
  /** SHA-256 (hex) of the stored PDF. */
  documentSha256?: string | undefined;
  coverPage?: boolean | undefined;
  /** Per-job retry policy; undefined follows the settings. */
  retryMaxAttempts?: number | undefined;
  retryDelaySeconds?: number | undefined;
  /** The submit's callback_url, and whether its events show the number in full. */
  callbackUrl?: string | undefined;
  callbackFullNumbers?: boolean | undefined;
  /** The API key id (or caller kind) that submitted it. */
  submittedBy?: string | undefined;
  /** Not before this time (a scheduled send). */
  sendAt?: Date | undefined;
  resendOf?: string | undefined;
  /** A job of a batch: the batch's id and the job's place in it. */
  batch?: { id: string; index: number } | undefined;
}

export interface StatusChange {
  status?: FaxStatus;
  pages?: number | undefined;
  error?: string | undefined;
  providerSid?: string | undefined;
  /** With FAILED: the line failed (busy, no answer), so the retry policy may redial. */
  lineFailure?: FaxLineFailure | undefined;
}

/** The redial policy of one job: its own overrides, else the settings. */
export interface RetryPolicy {
  maxAttempts: number;
  delaySeconds: number;
}

/** What became of a line failure: redialled, out of attempts (the job fails), or about an attempt already redialled. */
export type LineRetry = 'scheduled' | 'exhausted' | 'stale';

export interface JobFilter {
  status?: string;
  backend?: string;
  to?: string;
  since?: string;
  until?: string;
}

const CLAIMABLE: DispatchState[] = ['pending', 'uncertain', 'sending'];

// POST /fax and GET /fax/{id}: compiled once, not on every request.
const insertJob = new PreparedQuery(
  (db: Kysely<FaxTables>, row: FaxJobTable) => db.insertInto('fax_jobs').values(row),
  (row) => Object.values(row),
);
const jobById = new PreparedQuery(
  (db: Kysely<FaxTables>, id: string) => db.selectFrom('fax_jobs').selectAll().where('id', '=', id),
  (id) => [id],
);
// GET /fax/{id}: the job and how many jobs resend it, in one statement (the count is an index
// probe); the resends' ids are read only when there are some.
const jobWithResendCount = new PreparedQuery(
  (db: Kysely<FaxTables>, id: string) =>
    db
      .selectFrom('fax_jobs')
      .selectAll('fax_jobs')
      .select((eb) => eb.selectFrom('fax_jobs as resend').select(eb.fn.countAll().as('n')).whereRef('resend.resend_of', '=', 'fax_jobs.id').as('resend_count'))
      .where('fax_jobs.id', '=', id),
  (id) => [id],
);
const resendIds = new PreparedQuery(
  (db: Kysely<FaxTables>, id: string) => db.selectFrom('fax_jobs').select('id').where('resend_of', '=', id).orderBy('created_at'),
  (id) => [id],
);

/** The row of a new job, as inserted. */
function newJobRow(job: NewFaxJob, now: Date): FaxJobTable {
  const iso = now.toISOString();
  return {
    id: job.id,
    to_number: job.to,
    status: job.disabled ? 'disabled' : 'queued',
    error: null,
    pages: job.pages,
    backend: job.backend,
    provider_sid: null,
    pdf_key: job.pdfKey,
    source_type: job.sourceType,
    size_bytes: job.sizeBytes,
    created_at: iso,
    updated_at: iso,
    dispatch_state: job.disabled ? 'done' : 'pending',
    attempts: 0,
    next_attempt_at: job.sendAt?.getTime() ?? now.getTime(),
    lease_owner: null,
    lease_until: null,
    sent_at: null,
    last_checked_at: null,
    finished_at: job.disabled ? iso : null,
    artifacts_removed_at: null,
    retry_max_attempts: job.retryMaxAttempts ?? null,
    retry_delay_seconds: job.retryDelaySeconds ?? null,
    document_sha256: job.documentSha256 ?? null,
    cover_page: job.coverPage ? 1 : 0,
    callback_url: job.callbackUrl ?? null,
    callback_full_numbers: job.callbackFullNumbers ? 1 : 0,
    submitted_by: job.submittedBy ?? null,
    send_at: job.sendAt?.toISOString() ?? null,
    resend_of: job.resendOf ?? null,
    // fax.queued is owed (a disabled job fires nothing).
    event_pending: job.disabled ? 0 : 1,
    document_deleted_at: null,
    document_deleted_by: null,
    batch_id: job.batch?.id ?? null,
    batch_index: job.batch?.index ?? null,
  };
}

/**
 * Every job error passes here on its way into the table: the texts come from providers (code
 * plugins and manifest runtimes alike), which echo destinations, so numbers are masked first.
 */
const storedError = (error: string): string => maskNumbers(error);

/**
 * Fax jobs as database rows. Every write that moves a job is guarded in SQL (lease owner,
 * allowed predecessor statuses), so concurrent instances and late callbacks cannot undo one
 * another's work.
 */
export class FaxJobStore {
  readonly attempts: FaxJobAttempts;

  constructor(
    readonly db: Kysely<FaxTables>,
    readonly dialect: Dialect,
  ) {
    this.attempts = new FaxJobAttempts(db);
  }

  /** This store on `trx`: the job row and its attempts move together. */
  private within<T>(work: (store: FaxJobStore) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new FaxJobStore(trx, this.dialect)));
  }

  async insert(job: NewFaxJob, now = new Date(), db: Kysely<FaxTables> = this.db): Promise<FaxJobRow> {
    const row = newJobRow(job, now);
    await insertJob.execute(db, row);
    return row;
  }

  /** Inserts several new jobs with one statement: one commit, one round trip (submits' group commit). All or none. */
  async insertMany(jobs: { job: NewFaxJob; now: Date }[], db: Kysely<FaxTables> = this.db): Promise<FaxJobRow[]> {
    if (jobs.length === 1) return [await this.insert(jobs[0]!.job, jobs[0]!.now, db)];
    const rows = jobs.map(({ job, now }) => newJobRow(job, now));
    await db.insertInto('fax_jobs').values(rows).execute();
    return rows;
  }

  async get(id: string): Promise<FaxJobRow | undefined> {
    return (await jobById.execute(this.db, id)).rows[0];
  }

  /**
   * Claims up to `limit` jobs whose send is due (pending, uncertain, or `sending` under an
   * expired lease: a sender that died). With PostgreSQL the candidates are locked with
   * SKIP LOCKED, so instances never claim the same row. Leases run by the database's clock;
   * `now` (this instance's) only decides which sends are due.
   */
  async claim(owner: string, limit: number, leaseMs: number, now = Date.now()): Promise<FaxJobRow[]> {
    const candidates = this.db
      .selectFrom('fax_jobs')
      .select('id')
      .where('dispatch_state', 'in', CLAIMABLE)
      .where('next_attempt_at', '<=', now)
      .where(leaseFree(this.dialect))
      .orderBy('next_attempt_at')
      .limit(limit);
    return takeLeases(this.db, this.dialect, 'fax_jobs', candidates, owner, leaseMs);
  }

  /** Extends the leases `owner` holds, so a long send is not taken over. */
  async renew(owner: string, ids: string[], leaseMs: number): Promise<void> {
    await renewLeases(this.db, this.dialect, 'fax_jobs', ids, owner, leaseMs);
  }

  /** Records, before calling the provider, that a send is under way: a crash after this is "uncertain". */
  async markSending(id: string, owner: string, now = Date.now()): Promise<boolean> {
    return this.within(async (store) => {
      const r = await store.db
        .updateTable('fax_jobs')
        .set((eb) => ({ dispatch_state: 'sending', sent_at: now, attempts: eb('attempts', '+', 1), updated_at: new Date(now).toISOString() }))
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .where('dispatch_state', 'in', ['pending'])
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return false;
      const { attempts } = await store.db.selectFrom('fax_jobs').select('attempts').where('id', '=', id).executeTakeFirstOrThrow();
      await store.attempts.start(id, attempts, now);
      return true;
    });
  }

  /** The provider accepted (or a lookup found) the fax: results come by callback or polling now. True when anything changed. */
  async markAccepted(id: string, owner: string | null, change: StatusChange, now = Date.now()): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      let q = trx
        .updateTable('fax_jobs')
        .set({ dispatch_state: 'accepted', provider_sid: change.providerSid ?? null, lease_owner: null, lease_until: null, last_checked_at: now, updated_at: new Date(now).toISOString() })
        .where('id', '=', id)
        .where('dispatch_state', '!=', 'done');
      if (owner) q = q.where('lease_owner', '=', owner);
      const accepted = Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
      if (accepted) await this.attempts.with(trx).note(id, { providerSid: change.providerSid });
      const applied = await new FaxJobStore(trx, this.dialect).applyChange(id, { ...change, status: change.status === 'queued' ? 'in_progress' : change.status }, now);
      return accepted || applied;
    });
  }

  /** The outcome is unknown: resolve later by asking the provider, never by sending again. */
  async markUncertain(id: string, owner: string, retryAt: number, error: string, now = Date.now()): Promise<void> {
    await this.attempts.note(id, { error });
    await this.db
      .updateTable('fax_jobs')
      .set({ dispatch_state: 'uncertain', next_attempt_at: retryAt, lease_owner: null, lease_until: null, error: storedError(error), updated_at: new Date(now).toISOString() })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
    await this.applyChange(id, { status: 'in_progress' }, now);
  }

  /** The provider certainly did not accept: try again at `retryAt` (`attempts` when no send was recorded). */
  async scheduleRetry(id: string, owner: string, retryAt: number, error: string, attempts?: number, now = Date.now()): Promise<void> {
    await this.within(async (store) => {
      const r = await store.db
        .updateTable('fax_jobs')
        .set({ dispatch_state: 'pending', next_attempt_at: retryAt, lease_owner: null, lease_until: null, error: storedError(error), updated_at: new Date(now).toISOString(), ...(attempts === undefined ? {} : { attempts }) })
        .where('id', '=', id)
        .where('lease_owner', '=', owner)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return;
      if (attempts === undefined) await store.attempts.end(id, { outcome: 'not_accepted', error }, now);
      else await store.attempts.recordRefused(id, attempts, error, now);
    });
  }

  /**
   * The provider reports the line busy, unanswered or failed: while the job's policy allows
   * another dial, the job goes back to pending (still in_progress to its caller) for a new send
   * after the delay, and the attempt ends with its line failure. Guarded on the attempt number
   * and dispatch state, so a duplicate report of the same failure never dials twice.
   */
  async scheduleLineRetry(id: string, change: StatusChange & { lineFailure: FaxLineFailure }, defaults: RetryPolicy, now = Date.now()): Promise<LineRetry> {
    return this.within(async (store) => {
      const row = await store.get(id);
      if (!row || !['sending', 'accepted', 'uncertain'].includes(row.dispatch_state) || isFinal(row.status)) return 'stale';
      const policy = { maxAttempts: row.retry_max_attempts ?? defaults.maxAttempts, delaySeconds: row.retry_delay_seconds ?? defaults.delaySeconds };
      const dials = (await store.attempts.lineFailures(id)) + 1;
      if (dials >= policy.maxAttempts) return 'exhausted';
      const at = now + policy.delaySeconds * 1000;
      const error = `${change.error ?? change.lineFailure.replace('_', ' ')} (attempt ${row.attempts}); redial ${dials + 1} of ${policy.maxAttempts} at ${new Date(at).toISOString()}`;
      const r = await store.db
        .updateTable('fax_jobs')
        .set({ status: 'in_progress', dispatch_state: 'pending', next_attempt_at: at, provider_sid: null, lease_owner: null, lease_until: null, error: storedError(error), updated_at: new Date(now).toISOString() })
        .where('id', '=', id)
        .where('attempts', '=', row.attempts)
        .where('dispatch_state', 'in', ['sending', 'accepted', 'uncertain'])
        .where('status', 'in', ['queued', 'in_progress'])
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) return 'stale';
      await store.attempts.end(id, { outcome: 'FAILED', error: change.error ?? change.lineFailure, lineFailure: change.lineFailure, providerSid: change.providerSid ?? row.provider_sid ?? undefined }, now);
      return 'scheduled';
    });
  }

  /** Lets go of a claimed job without changing it (shutdown, or nothing to do yet). */
  async release(id: string, owner: string, retryAt?: number): Promise<void> {
    await this.db
      .updateTable('fax_jobs')
      .set(retryAt === undefined ? { lease_owner: null, lease_until: null } : { lease_owner: null, lease_until: null, next_attempt_at: retryAt })
      .where('id', '=', id)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /** Fails a job for good (and ends its dispatch). */
  async fail(id: string, error: string, now = Date.now()): Promise<boolean> {
    return this.applyChange(id, { status: 'FAILED', error }, now);
  }

  /**
   * Applies a provider's word on a job, forward only. A final status ends dispatch. A repeated
   * final status may still fill in the page count and provider id. True when anything changed.
   */
  async applyChange(id: string, change: StatusChange, now = Date.now()): Promise<boolean> {
    const iso = new Date(now).toISOString();
    if (change.status) {
      const from = predecessorsOf(change.status);
      if (from.length) {
        const final = isFinal(change.status);
        const set: Partial<FaxJobTable> = { status: change.status, updated_at: iso };
        if (change.pages !== undefined) set.pages = change.pages;
        if (change.error !== undefined) set.error = storedError(change.error);
        else if (change.status === 'SUCCESS') set.error = null;
        if (change.providerSid) set.provider_sid = change.providerSid;
        if (final) {
          set.dispatch_state = 'done';
          set.finished_at = iso;
          set.event_pending = 1;
          set.lease_owner = null;
          set.lease_until = null;
        }
        const r = await this.db.updateTable('fax_jobs').set(set).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
        if (Number(r.numUpdatedRows) === 1) {
          if (final) {
            await this.attempts.end(id, { outcome: change.status === 'SUCCESS' ? 'SUCCESS' : 'FAILED', error: change.error, lineFailure: change.lineFailure, providerSid: change.providerSid }, now);
          }
          return true;
        }
      }
    }
    // Same status again (a duplicate or late callback): only refine pages and provider id.
    const refine: Partial<FaxJobTable> = {};
    if (change.pages !== undefined) refine.pages = change.pages;
    if (change.providerSid) refine.provider_sid = change.providerSid;
    if (!Object.keys(refine).length || !change.status) return false;
    const r = await this.db
      .updateTable('fax_jobs')
      .set({ ...refine, updated_at: iso })
      .where('id', '=', id)
      .where('status', '=', change.status)
      .where((eb) => {
        const differs = [];
        if (change.pages !== undefined) differs.push(eb('pages', 'is', null), eb('pages', '!=', change.pages));
        if (change.providerSid) differs.push(eb('provider_sid', 'is', null), eb('provider_sid', '!=', change.providerSid));
        return eb.or(differs);
      })
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /**
   * Ends a job no dispatcher holds and nothing was sent for yet (waiting, scheduled, or between
   * redials) as FAILED with `error`; false when a send is under way or the job is final.
   */
  async cancelWaiting(id: string, error: string, now = Date.now()): Promise<boolean> {
    const iso = new Date(now).toISOString();
    const r = await this.db
      .updateTable('fax_jobs')
      .set({ status: 'FAILED', error, dispatch_state: 'done', finished_at: iso, updated_at: iso, lease_owner: null, lease_until: null, event_pending: 1 })
      .where('id', '=', id)
      .where('dispatch_state', '=', 'pending')
      .where('status', 'in', ['queued', 'in_progress'])
      .where(leaseFree(this.dialect))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** The jobs of a batch in the order of its recipients; empty when there is no such batch. */
  async batchJobs(batchId: string): Promise<FaxJobRow[]> {
    return this.db.selectFrom('fax_jobs').selectAll().where('batch_id', '=', batchId).orderBy('batch_index').execute();
  }

  /** A job with the ids of the jobs made by resending it (oldest first); undefined when there is no such job. */
  async getWithResends(id: string): Promise<{ row: FaxJobRow; resentAs: string[] } | undefined> {
    const found = (await jobWithResendCount.execute(this.db, id)).rows[0];
    if (!found) return undefined;
    const { resend_count: count, ...row } = found;
    const resentAs = Number(count) > 0 ? (await resendIds.execute(this.db, id)).rows.map((r) => r.id) : [];
    return { row, resentAs };
  }

  /** Accepted, unfinished jobs not heard of for `staleMs`: the reconciler asks their provider. */
  async dueForCheck(staleMs: number, limit: number, now = Date.now()): Promise<FaxJobRow[]> {
    return this.db
      .selectFrom('fax_jobs')
      .selectAll()
      .where('dispatch_state', '=', 'accepted')
      .where((eb) => eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<', now - staleMs)]))
      .orderBy('last_checked_at')
      .limit(limit)
      .execute();
  }

  async markChecked(id: string, now = Date.now()): Promise<void> {
    await this.db.updateTable('fax_jobs').set({ last_checked_at: now }).where('id', '=', id).execute();
  }

  /** Newest first, keyset-paginated on (created_at, id). */
  async list(filter: JobFilter, limit: number, cursor?: { createdAt: string; id: string }): Promise<FaxJobRow[]> {
    let q = this.db.selectFrom('fax_jobs').selectAll();
    if (filter.status) q = q.where('status', '=', filter.status);
    if (filter.backend) q = q.where('backend', '=', filter.backend);
    if (filter.to) q = q.where('to_number', '=', filter.to);
    if (filter.since) q = q.where('created_at', '>=', filter.since);
    if (filter.until) q = q.where('created_at', '<', filter.until);
    if (cursor) q = q.where((eb) => eb.or([eb('created_at', '<', cursor.createdAt), eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)])]));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /**
   * Jobs created at or after `since` (ISO), counted by the hour they were created in
   * ("YYYY-MM-DDTHH", UTC, from the ISO text) and their status now.
   */
  async countByHour(since: string): Promise<{ hour: string; status: string; n: number }[]> {
    const rows = await this.db
      .selectFrom('fax_jobs')
      .select((eb) => [eb.fn<string>('substr', [eb.ref('created_at'), eb.val(1), eb.val(13)]).as('hour'), 'status', eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', since)
      .groupBy(['hour', 'status'])
      .execute();
    return rows.map((r) => ({ hour: String(r.hour), status: r.status, n: Number(r.n) }));
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.selectFrom('fax_jobs').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
