import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { FaxConfig } from '../fax-settings.js';
import { PluginNotAvailableError, type Kernel } from '../../../../core/kernel/kernel.js';
import { EgressDeniedError, NotAcceptedError, RejectedError, UncertainOutcomeError, type FaxProviderStatus } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { JobDocuments } from '../jobs/job-documents.js';
import type { FaxJobRow, FaxJobStore } from '../jobs/job-store.js';
import type { JobUpdates } from '../jobs/job-updates.js';
import { publicBaseUrl } from '../../../platform/http/public-url.js';
import { callbackUrlFor } from '../webhooks/webhook-aliases.js';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';

/**
 * Sends due jobs. A job is a row claimed with a lease (renewed while worked on), so a crashed
 * instance's jobs are taken over. A send is repeated only when the provider certainly did not
 * accept it; an uncertain outcome is resolved by asking the provider, never by sending again.
 */
export class FaxDispatcher {
  /** Names the process in the jobs' lease_owner, so an operator sees which instance holds a job. */
  readonly owner = `dispatcher-${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Claims due jobs every FAX_DISPATCH_POLL_MS (read live), at once when woken. */
  private readonly poll: RecurringTask;
  /** Renews the leases of the jobs being worked on. */
  private readonly renewal: RecurringTask;

  constructor(
    private readonly deps: {
      store: FaxJobStore;
      kernel: Kernel;
      documents: JobDocuments;
      updates: JobUpdates;
      config: FaxConfig;
      audit: AuditLog;
      logger: Logger;
      /** Status events of a send starting and of a refused send retried (status-events/). */
      events?: { sending(row: FaxJobRow): Promise<void>; retrying(row: FaxJobRow): Promise<void> };
    },
  ) {
    const { config, store, logger } = deps;
    this.poll = new RecurringTask({
      cadence: { pauseMs: () => config.get('FAX_DISPATCH_POLL_MS') },
      task: () => this.tick(),
      onError: (err) => logger.warn({ err: (err as Error).message }, 'fax dispatch claim failed'),
    });
    // The lease length is read at each renewal (a live change applies); the period is set at start.
    this.renewal = new RecurringTask({
      cadence: { everyMs: () => Math.max(100, Math.floor(config.get('FAX_LEASE_MS') / 3)) },
      task: () => store.renew(this.owner, [...this.inFlight.keys()], config.get('FAX_LEASE_MS')),
      // a failed renewal is retried at the next; past the lease another instance may take the job
      onError: () => {},
    });
  }

  start(): void {
    this.renewal.start();
    this.poll.start();
    this.poll.wake();
  }

  /** Stops claiming; waits for the claim and the sends under way (they finish on their own). */
  async stop(): Promise<void> {
    await this.poll.stop();
    await Promise.allSettled([...this.inFlight.values()]);
    await this.renewal.stop();
  }

  /** Looks for work now (a job was just submitted, or a send ended). */
  wake(): void {
    this.poll.wake();
  }

  /** Claims as many due jobs as there are free slots; more may be due when any were claimed. */
  private async tick(): Promise<void> {
    const free = this.deps.config.get('FAX_DISPATCH_CONCURRENCY') - this.inFlight.size;
    if (free <= 0) return;
    const jobs = await this.deps.store.claim(this.owner, free, this.deps.config.get('FAX_LEASE_MS'));
    for (const job of jobs) {
      const work = this.work(job).finally(() => {
        this.inFlight.delete(job.id);
        this.wake();
      });
      this.inFlight.set(job.id, work);
    }
    if (jobs.length) this.wake();
  }

  private async work(job: FaxJobRow): Promise<void> {
    try {
      if (job.dispatch_state === 'pending') await this.send(job);
      else await this.resolve(job);
    } catch (err) {
      // Bookkeeping failed (database gone): let the lease expire and the job be claimed again.
      this.deps.logger.error({ job_id: job.id, err: (err as Error).message }, 'fax dispatch bookkeeping failed');
    }
  }

  private retryDelay(attempts: number, hintMs?: number): number {
    const base = this.deps.config.get('FAX_RETRY_BASE_MS');
    return Math.max(hintMs ?? 0, Math.min(base * 2 ** Math.max(0, attempts - 1), 15 * 60_000));
  }

  private async send(job: FaxJobRow): Promise<void> {
    const { store, kernel, documents, updates, audit, config } = this.deps;
    const attempts = job.attempts + 1;
    if (!kernel.isActive('fax', job.backend)) {
      await this.notAccepted(job, attempts, `fax backend "${job.backend}" is not active (state: ${kernel.stateOf(job.backend)})`);
      return;
    }
    if (!kernel.servesFax(job.backend, 'outbound')) {
      await this.notAccepted(job, attempts, `fax backend "${job.backend}" serves inbound only: its outbound settings are not set`);
      return;
    }
    const sentAt = Date.now();
    if (!(await store.markSending(job.id, this.owner, sentAt))) return;
    audit.record('job_dispatch', { job_id: job.id, backend: job.backend, attempt: attempts });
    await this.announce(job.id, 'sending');
    let result: FaxProviderStatus & { providerSid: string };
    try {
      result = await kernel.withProvider('fax', job.backend, (fax) => {
        // Past half of its lookup guarantee a taker-over may already have resent it: do not send.
        if (fax.lookupCertainAfterMs !== undefined && Date.now() - sentAt > fax.lookupCertainAfterMs / 2) throw new NotAcceptedError('the send was recorded too long ago to go out now; it is retried');
        return documents.withStorage((storage) =>
          fax.send({
            jobId: job.id,
            to: job.to_number,
            document: documents.documentFor(job, storage),
            publicBaseUrl: publicBaseUrl(config),
            callbackUrl: callbackUrlFor(kernel, job.backend, publicBaseUrl(config), job.id),
          }),
        );
      });
    } catch (err) {
      await this.sendFailed(job, attempts, err);
      return;
    }
    await updates.applyUpdate(job, { status: result.status, pages: result.pages, providerSid: result.providerSid, error: result.error, lineFailure: result.lineFailure }, 'dispatch', { owner: this.owner });
  }

  private async sendFailed(job: FaxJobRow, attempts: number, err: unknown): Promise<void> {
    const message = (err as Error)?.message ?? String(err);
    if (err instanceof NotAcceptedError || err instanceof PluginNotAvailableError) {
      // Sending state was recorded, but the provider certainly has nothing: back to pending.
      await this.notAccepted(job, attempts, message, err instanceof NotAcceptedError ? err.retryAfterMs : undefined, true);
      return;
    }
    if (err instanceof RejectedError || err instanceof EgressDeniedError || (err as { code?: string })?.code === 'rejected') {
      await this.failJob(job, message);
      return;
    }
    // Uncertain, or an unexpected error after the send may have gone out: never resend.
    const recheck = Date.now() + this.deps.config.get('FAX_UNCERTAIN_RECHECK_MS');
    await this.deps.store.markUncertain(job.id, this.owner, recheck, `send outcome unknown: ${message}`);
    this.deps.logger.warn({ job_id: job.id, backend: job.backend, err: message, uncertain: err instanceof UncertainOutcomeError }, 'fax send outcome unknown; will look it up');
  }

  private async notAccepted(job: FaxJobRow, attempts: number, message: string, hintMs?: number, sendingRecorded = false): Promise<void> {
    const { store, config, logger } = this.deps;
    // Redials after a busy line are the retry policy's; FAX_MAX_ATTEMPTS counts refused sends only.
    const refused = attempts - (await store.attempts.lineFailures(job.id));
    if (refused >= config.get('FAX_MAX_ATTEMPTS')) {
      await this.failJob(job, `not accepted after ${attempts} attempts: ${message}`);
      return;
    }
    const at = Date.now() + this.retryDelay(attempts, hintMs);
    // markSending counted the attempt; an attempt that never reached a provider is counted here.
    await store.scheduleRetry(job.id, this.owner, at, message, sendingRecorded ? undefined : attempts);
    logger.info({ job_id: job.id, attempt: attempts, retry_in_ms: at - Date.now(), err: message }, 'fax not accepted; retrying');
    await this.announce(job.id, 'retrying');
  }

  private async announce(id: string, step: 'sending' | 'retrying'): Promise<void> {
    const events = this.deps.events;
    if (!events) return;
    const row = await this.deps.store.get(id);
    if (row) await events[step](row);
  }

  private async failJob(job: FaxJobRow, error: string): Promise<void> {
    await this.deps.updates.fail(job, error, 'dispatch');
  }

  /**
   * Uncertain sends (and sends of a dead instance): ask the provider whether it has the fax. One
   * it has not is sent again once its lookup is certain (lookupCertainAfterMs), else given up on.
   */
  private async resolve(job: FaxJobRow): Promise<void> {
    const { store, kernel, config } = this.deps;
    const recheck = Date.now() + config.get('FAX_UNCERTAIN_RECHECK_MS');
    let found: FaxProviderStatus | null;
    let certainAfterMs: number | undefined;
    try {
      found = await kernel.withProvider('fax', job.backend, (fax) => {
        certainAfterMs = fax.lookupCertainAfterMs;
        return fax.status({ jobId: job.id, to: job.to_number, sentAt: new Date(job.sent_at ?? Date.parse(job.created_at)), ...(job.provider_sid ? { providerSid: job.provider_sid } : {}) });
      });
    } catch (err) {
      await store.release(job.id, this.owner, recheck);
      this.deps.logger.warn({ job_id: job.id, err: (err as Error).message }, 'lookup of an uncertain send failed; will retry');
      return;
    }
    // A lookup by job id may find the fax of an attempt that was redialled since: not this send.
    if (found?.providerSid && (await store.attempts.isSuperseded(job.id, found.providerSid))) found = null;
    if (found) {
      await this.deps.updates.applyUpdate(job, { status: found.status, pages: found.pages, providerSid: found.providerSid ?? job.provider_sid ?? undefined, error: found.error, lineFailure: found.lineFailure }, 'lookup', { owner: this.owner });
      return;
    }
    const since = job.sent_at ?? Date.parse(job.created_at);
    if (certainAfterMs !== undefined && !job.provider_sid && Date.now() - since > certainAfterMs) {
      // The provider's lookup is certain by now: the send never reached it, so it goes out again.
      await this.notAccepted(job, job.attempts, 'the provider has no record of the send (its sender died or lost the answer); sending again', undefined, true);
      return;
    }
    if (Date.now() - since > config.get('FAX_UNCERTAIN_GIVE_UP_MINUTES') * 60_000) {
      await this.failJob(job, 'send outcome unknown and the provider has no record of it; not resent to avoid a duplicate fax');
      return;
    }
    await store.release(job.id, this.owner, recheck);
  }
}
