import type { Logger } from 'pino';
import { removeStoredPrefix } from '../documents/stored-media.js';
import type { Kysely } from 'kysely';
import type { FaxConfig } from '../fax-settings.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { StorageProvider } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { FaxTables } from '../fax-tables.js';
import type { ClusterLeases } from '../../../platform/db/cluster-leases.js';
import { jobPrefix } from '../jobs/job-documents.js';
import type { FaxApprovals } from '../jobs/fax-approvals.js';
import { inboundPrefix } from '../inbound/inbound-service.js';
import { RecurringTask, type ScheduleTimers } from '../../../platform/runtime/recurring-task.js';
import { sweepTempFiles } from '../../../platform/cleanup/temp-sweep.js';

const DAY_MS = 86_400_000;
const BATCH = 200;
/** A file younger than this without a row may belong to a receipt or submission in flight. */
const ORPHAN_GRACE_MS = 60 * 60_000;

export interface CleanupCounts {
  fax_jobs: number;
  fax_files: number;
  inbound_faxes: number;
  inbound_files: number;
  orphan_files: number;
  /** Upload temp files (DATA_DIR/tmp) of requests a killed process left behind. */
  temp_files: number;
  /** Fax approvals (POST /fax/prepare) spent or expired, with their documents. */
  fax_approvals: number;
}

/**
 * Removes expired artifacts: files of finished fax jobs older than ARTIFACT_TTL_DAYS (the row
 * stays, marked), inbound faxes older than INBOUND_RETENTION_DAYS (file and row), and files
 * under fax/ or inbound/ that no row owns. Touches nothing outside those two prefixes in
 * storage; besides, upload temp files older than the process go (as at start).
 * Scheduled passes run every CLEANUP_INTERVAL_MINUTES (read live) while ARTIFACT_TTL_DAYS or
 * INBOUND_RETENTION_DAYS is set; the storage part runs on one instance of a cluster at a time
 * (lease `fax.artifact-cleanup`), the others sweep only their own temp files. Spent and expired
 * fax approvals (and their documents) are removed on every scheduled pass, under the same lease,
 * whether or not those retention settings are set.
 */
export class ArtifactCleanup {
  private schedule?: RecurringTask;
  private running?: Promise<CleanupCounts>;
  private unsubscribe?: () => void;

  constructor(
    private readonly deps: { db: Kysely<FaxTables>; kernel: Kernel; config: FaxConfig; audit: AuditLog; logger: Logger; tmpDir: string; leases: ClusterLeases; approvals?: FaxApprovals; timers?: ScheduleTimers },
  ) {}

  start(): void {
    const { config } = this.deps;
    // runOnce shares a pass under way, so a run still going when the next is due is not doubled
    const retains = () => config.get('ARTIFACT_TTL_DAYS') > 0 || config.get('INBOUND_RETENTION_DAYS') > 0;
    // both parts log their own failure (pass, sweepApprovals)
    const exclusive = this.deps.leases.exclusive('fax.artifact-cleanup', async () => {
      if (retains()) await this.runOnce(this.deps.timers?.now()).catch(() => undefined);
      else await this.sweepApprovals(this.deps.timers?.now() ?? Date.now()).catch(() => 0);
    });
    this.schedule = new RecurringTask({
      cadence: { everyMs: () => config.get('CLEANUP_INTERVAL_MINUTES') * 60_000 },
      task: async () => {
        if (!(await exclusive()) && retains()) await sweepTempFiles(this.deps.tmpDir);
      },
      onError: (err) => this.deps.logger.warn({ err: (err as Error).message }, 'scheduled artifact cleanup failed; next run retries'),
      timers: this.deps.timers,
    });
    this.unsubscribe = config.onChange((keys) => {
      if (keys.includes('CLEANUP_INTERVAL_MINUTES')) this.schedule?.reschedule();
    });
    this.schedule.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.schedule?.stop();
    // a pass asked for through the API (runOnce) may still be under way
    await this.running?.catch(() => undefined);
  }

  /** One pass (also what the schedule runs); concurrent calls share the pass under way. */
  runOnce(now = Date.now()): Promise<CleanupCounts> {
    this.running ??= this.pass(now).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(now: number): Promise<CleanupCounts> {
    const counts: CleanupCounts = { fax_jobs: 0, fax_files: 0, inbound_faxes: 0, inbound_files: 0, orphan_files: 0, temp_files: 0, fax_approvals: 0 };
    const { config, db } = this.deps;
    try {
      counts.temp_files = await sweepTempFiles(this.deps.tmpDir);
      await this.deps.kernel.withProvider('storage', config.get('STORAGE_BACKEND'), async (storage) => {
        const ttlDays = config.get('ARTIFACT_TTL_DAYS');
        if (ttlDays > 0) await this.expireJobs(storage, new Date(now - ttlDays * DAY_MS).toISOString(), now, counts);
        const retention = config.get('INBOUND_RETENTION_DAYS');
        if (retention > 0) await this.expireInbound(storage, now - retention * DAY_MS, counts);
        // A batch's shared document (fax/<batch id>/) lives while a job of the batch keeps its artifacts.
        await this.sweepOrphans(storage, 'fax', now, counts, async (ids) => {
          if (!ids.length) return new Set<string>();
          const jobs = await db.selectFrom('fax_jobs').select('id').where('id', 'in', ids).where('artifacts_removed_at', 'is', null).execute();
          const batches = await db.selectFrom('fax_jobs').select('batch_id').distinct().where('batch_id', 'in', ids).where('artifacts_removed_at', 'is', null).execute();
          return new Set([...jobs.map((r) => r.id), ...batches.map((r) => r.batch_id!)]);
        });
        await this.sweepOrphans(storage, 'inbound', now, counts, async (ids) => {
          const rows = ids.length ? await db.selectFrom('inbound_faxes').select('id').where('id', 'in', ids).execute() : [];
          return new Set(rows.map((r) => r.id));
        });
        if (this.deps.approvals) counts.fax_approvals = await this.deps.approvals.sweep(storage, now);
      });
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'artifact cleanup failed; next run retries');
      throw err;
    }
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total) this.deps.audit.record('artifacts_cleaned', { ...counts });
    return counts;
  }

  /** The approvals part alone (a scheduled pass while no retention is set). */
  private async sweepApprovals(now: number): Promise<number> {
    const { approvals, kernel, config, logger } = this.deps;
    if (!approvals) return 0;
    try {
      const removed = await kernel.withProvider('storage', config.get('STORAGE_BACKEND'), (storage) => approvals.sweep(storage, now));
      if (removed) this.deps.audit.record('artifacts_cleaned', { fax_approvals: removed });
      return removed;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'fax approval sweep failed; next run retries');
      throw err;
    }
  }

  private async expireJobs(storage: StorageProvider, cutoffIso: string, now: number, counts: CleanupCounts): Promise<void> {
    const { db } = this.deps;
    for (;;) {
      const jobs = await db
        .selectFrom('fax_jobs')
        .select('id')
        .where('dispatch_state', '=', 'done')
        .where('finished_at', 'is not', null)
        .where('finished_at', '<', cutoffIso)
        .where('artifacts_removed_at', 'is', null)
        .limit(BATCH)
        .execute();
      for (const job of jobs) {
        counts.fax_files += await this.removePrefix(storage, `${jobPrefix(job.id)}/`);
        await db.updateTable('fax_jobs').set({ artifacts_removed_at: new Date(now).toISOString() }).where('id', '=', job.id).execute();
        counts.fax_jobs++;
      }
      if (jobs.length < BATCH) return;
    }
  }

  private async expireInbound(storage: StorageProvider, cutoff: number, counts: CleanupCounts): Promise<void> {
    const { db } = this.deps;
    for (;;) {
      const rows = await db.selectFrom('inbound_faxes').select('id').where('created_at', '<', cutoff).limit(BATCH).execute();
      for (const row of rows) {
        counts.inbound_files += await this.removePrefix(storage, `${inboundPrefix(row.id)}/`);
        await db.deleteFrom('inbound_faxes').where('id', '=', row.id).execute();
        counts.inbound_faxes++;
      }
      if (rows.length < BATCH) return;
    }
  }

  /** Files under `<root>/<id>/` older than the grace period whose id `owned` does not know. */
  private async sweepOrphans(storage: StorageProvider, root: 'fax' | 'inbound', now: number, counts: CleanupCounts, owned: (ids: string[]) => Promise<Set<string>>): Promise<void> {
    const entries = (await storage.list(`${root}/`)).filter((e) => now - e.modifiedAt.getTime() > ORPHAN_GRACE_MS);
    const byId = new Map<string, string[]>();
    for (const e of entries) {
      const id = e.key.split('/')[1];
      if (!id) continue;
      byId.set(id, [...(byId.get(id) ?? []), e.key]);
    }
    const ids = [...byId.keys()];
    for (let i = 0; i < ids.length; i += BATCH) {
      const chunk = ids.slice(i, i + BATCH);
      const live = await owned(chunk);
      for (const id of chunk) {
        if (live.has(id)) continue;
        for (const key of byId.get(id)!) if (await storage.delete(key)) counts.orphan_files++;
      }
    }
  }

  private removePrefix(storage: StorageProvider, prefix: string): Promise<number> {
    return removeStoredPrefix(storage, prefix);
  }
}
