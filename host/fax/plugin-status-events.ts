import type { Logger } from 'pino';
import type { Kernel } from '../../core/kernel/kernel.js';
import { FAX_STATUS_EVENT, type FaxStatusUpdate } from '../../core/sdk/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { FaxJobStore } from './job-store.js';

/** Applies results that plugins learn out of band (AMI, ESL events) to their jobs. */
export function applyPluginStatusEvents(deps: { kernel: Kernel; store: FaxJobStore; audit: AuditLog; logger: Logger }): void {
  const { kernel, store, audit, logger } = deps;
  kernel.events.on('plugin-event', (event) => {
    if (event.topic !== FAX_STATUS_EVENT) return;
    const update = event.payload as FaxStatusUpdate;
    void (async () => {
      const row = await store.get(update.jobId);
      // A plugin may only report on jobs it sends.
      if (!row || row.backend !== event.pluginId) return;
      if (await store.applyChange(row.id, { status: update.status, pages: update.pages, error: update.error, providerSid: update.providerSid })) {
        audit.record(update.status === 'FAILED' ? 'job_failed' : 'job_updated', { job_id: row.id, backend: row.backend, status: update.status, via: 'event' });
      }
    })().catch((err) => logger.warn({ err: (err as Error).message }, 'fax status event not applied'));
  });
}
