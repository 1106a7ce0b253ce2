import type { Logger } from 'pino';
import type { ConfigRegistry } from '../config/registry.js';
import type { Kernel } from '../../core/kernel/kernel.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { FaxJobRow, FaxJobStore } from './job-store.js';

/**
 * Polls providers for accepted jobs nobody has heard of in a while, so a lost callback never
 * leaves a job in_progress forever; fails jobs past the result timeout.
 */
export class FaxReconciler {
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> | undefined;

  constructor(private readonly deps: { store: FaxJobStore; kernel: Kernel; config: ConfigRegistry; audit: AuditLog; logger: Logger }) {}

  start(): void {
    const loop = () => {
      this.timer = setTimeout(() => {
        this.busy = this.runOnce().finally(loop);
      }, this.deps.config.get('FAX_RECONCILE_INTERVAL_MS'));
      this.timer.unref();
    };
    loop();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.busy;
  }

  async runOnce(): Promise<void> {
    const jobs = await this.deps.store.dueForCheck(this.deps.config.get('FAX_STATUS_POLL_MS'), 50).catch(() => [] as FaxJobRow[]);
    for (const job of jobs) await this.check(job);
  }

  /** Polls one job's provider now and applies what it says. */
  async check(job: FaxJobRow): Promise<string> {
    const { store, kernel, config, audit } = this.deps;
    await store.markChecked(job.id);
    const age = Date.now() - (job.sent_at ?? Date.parse(job.created_at));
    try {
      const status = await kernel.withProvider('fax', job.backend, (fax) =>
        fax.status({ jobId: job.id, to: job.to_number, sentAt: new Date(job.sent_at ?? Date.parse(job.created_at)), ...(job.provider_sid ? { providerSid: job.provider_sid } : {}) }),
      );
      if (status && (await store.applyChange(job.id, { status: status.status, pages: status.pages, error: status.error, providerSid: status.providerSid }))) {
        audit.record(status.status === 'FAILED' ? 'job_failed' : 'job_updated', { job_id: job.id, backend: job.backend, status: status.status, via: 'poll', error: status.error });
      }
    } catch (err) {
      this.deps.logger.warn({ job_id: job.id, err: (err as Error).message }, 'status poll failed');
    }
    const fresh = await store.get(job.id);
    if (fresh && fresh.dispatch_state !== 'done' && age > config.get('FAX_RESULT_TIMEOUT_MINUTES') * 60_000) {
      if (await store.fail(job.id, `no result within ${config.get('FAX_RESULT_TIMEOUT_MINUTES')} minutes`)) {
        audit.record('job_failed', { job_id: job.id, backend: job.backend, error: 'result timeout' });
      }
    }
    return (await store.get(job.id))?.status ?? 'unknown';
  }
}
