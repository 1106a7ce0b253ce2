import type { Logger } from 'pino';
import type { FaxConfig } from '../fax-settings.js';
import type { ClusterLeases } from '../../../platform/db/cluster-leases.js';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxJobRow, FaxJobStore } from '../jobs/job-store.js';
import type { JobUpdates } from '../jobs/job-updates.js';

/**
 * Polls providers for accepted jobs nobody has heard of in a while, so a lost callback never
 * leaves a job in_progress forever; fails jobs past the result timeout. One instance of a
 * cluster runs the passes (lease `fax.reconcile`).
 */
export class FaxReconciler {
  private readonly loop: RecurringTask;

  constructor(private readonly deps: { store: FaxJobStore; kernel: Kernel; config: FaxConfig; updates: JobUpdates; logger: Logger; leases: ClusterLeases }) {
    this.loop = new RecurringTask({
      cadence: { pauseMs: () => deps.config.get('FAX_RECONCILE_INTERVAL_MS') },
      task: deps.leases.exclusive('fax.reconcile', () => this.runOnce()),
      onError: (err) => deps.logger.error({ err: (err as Error).message }, 'fax reconcile pass failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  async runOnce(): Promise<void> {
    const jobs = await this.deps.store.dueForCheck(this.deps.config.get('FAX_STATUS_POLL_MS'), 50).catch(() => [] as FaxJobRow[]);
    for (const job of jobs) await this.check(job);
  }

  /** Polls one job's provider now and applies what it says. */
  async check(job: FaxJobRow): Promise<string> {
    const { store, kernel, config, updates } = this.deps;
    await store.markChecked(job.id);
    const age = Date.now() - (job.sent_at ?? Date.parse(job.created_at));
    try {
      const status = await kernel.withProvider('fax', job.backend, (fax) =>
        fax.status({ jobId: job.id, to: job.to_number, sentAt: new Date(job.sent_at ?? Date.parse(job.created_at)), ...(job.provider_sid ? { providerSid: job.provider_sid } : {}) }),
      );
      if (status) await updates.applyUpdate(job, { status: status.status, pages: status.pages, error: status.error, providerSid: status.providerSid, lineFailure: status.lineFailure }, 'poll');
    } catch (err) {
      this.deps.logger.warn({ job_id: job.id, err: (err as Error).message }, 'status poll failed');
    }
    const fresh = await store.get(job.id);
    if (fresh && fresh.dispatch_state !== 'done' && age > config.get('FAX_RESULT_TIMEOUT_MINUTES') * 60_000) {
      await updates.fail(job, `no result within ${config.get('FAX_RESULT_TIMEOUT_MINUTES')} minutes`, 'timeout');
    }
    return (await store.get(job.id))?.status ?? 'unknown';
  }
}
