import type { Logger } from 'pino';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { FaxJobRow, FaxJobStore, RetryPolicy, StatusChange } from './job-store.js';

/** The status events a status step fires (status-events/): the job as it is after the step. */
export interface JobEvents {
  retrying(row: FaxJobRow): Promise<void>;
  finished(row: FaxJobRow): Promise<void>;
}

/** Who reported a status: kept in the audit record. */
export type UpdateSource = 'callback' | 'event' | 'poll' | 'dispatch' | 'lookup' | 'timeout';

/**
 * The one path every status writer takes (provider callbacks, plugin events, polling, the
 * dispatcher and admin refresh): apply the provider's word forward-only, then audit it when it
 * changed something. A result arriving twice (callback and event, say) is applied and audited once.
 */
export class JobUpdates {
  constructor(
    private readonly deps: {
      store: FaxJobStore;
      audit: AuditLog;
      /** FAX_RETRY_MAX_ATTEMPTS and FAX_RETRY_DELAY_SECONDS now; absent, a line failure is final. */
      retryPolicy?: () => RetryPolicy;
      /** A job's final state is logged once, with its id, where operators read the log. */
      logger?: Pick<Logger, 'info' | 'warn'>;
      events?: JobEvents;
    },
  ) {}

  /**
   * Applies `change` to the job. `accepted` marks a send the provider took (the dispatcher's send
   * or lookup): dispatch moves on to waiting for results. True when anything changed.
   */
  async applyUpdate(job: Pick<FaxJobRow, 'id' | 'backend'>, change: StatusChange, via: UpdateSource, accepted?: { owner: string | null }): Promise<boolean> {
    const { store, audit } = this.deps;
    // A late word about an attempt that was redialled since must not end the redial.
    if (change.providerSid && (await store.attempts.isSuperseded(job.id, change.providerSid))) return false;
    if (change.status === 'FAILED' && change.lineFailure) {
      const retry = await store.scheduleLineRetry(job.id, { ...change, lineFailure: change.lineFailure }, this.deps.retryPolicy?.() ?? { maxAttempts: 1, delaySeconds: 0 });
      if (retry === 'stale') return false;
      if (retry === 'scheduled') {
        audit.record('job_retry_scheduled', { job_id: job.id, backend: job.backend, via, line_failure: change.lineFailure, error: change.error ?? change.lineFailure });
        await this.announce(job.id, 'retrying');
        return true;
      }
    }
    const changed = accepted ? await this.deps.store.markAccepted(job.id, accepted.owner, change) : await this.deps.store.applyChange(job.id, change);
    if (!changed) return false;
    const failed = change.status === 'FAILED';
    this.deps.audit.record(failed ? 'job_failed' : 'job_updated', {
      job_id: job.id,
      backend: job.backend,
      status: change.status,
      via,
      ...(change.pages !== undefined ? { pages: change.pages } : {}),
      ...(change.providerSid ? { provider_sid: change.providerSid } : {}),
      ...(failed ? { error: change.error ?? 'failed' } : {}),
      ...(failed && change.lineFailure ? { line_failure: change.lineFailure } : {}),
    });
    if (failed || change.status === 'SUCCESS') await this.announce(job.id, 'finished');
    if (failed) this.deps.logger?.warn({ job_id: job.id, backend: job.backend, via, error: change.error ?? 'failed' }, 'fax job FAILED');
    else if (change.status === 'SUCCESS') this.deps.logger?.info({ job_id: job.id, backend: job.backend, via, ...(change.pages !== undefined ? { pages: change.pages } : {}) }, 'fax job SUCCESS');
    return true;
  }

  private async announce(id: string, step: keyof JobEvents): Promise<void> {
    if (!this.deps.events) return;
    const row = await this.deps.store.get(id);
    if (row) await this.deps.events[step](row);
  }

  /** Fails a job for good (ends its dispatch); audited once. */
  fail(job: Pick<FaxJobRow, 'id' | 'backend'>, error: string, via: UpdateSource): Promise<boolean> {
    return this.applyUpdate(job, { status: 'FAILED', error }, via);
  }
}
