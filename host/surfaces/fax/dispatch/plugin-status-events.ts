import type { Logger } from 'pino';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import { FAX_STATUS_EVENT, type FaxStatusUpdate } from '../../../../core/sdk/index.js';
import type { FaxJobStore } from '../jobs/job-store.js';
import type { JobUpdates } from '../jobs/job-updates.js';

/** Applies results that plugins learn out of band (AMI, ESL events) to their jobs. */
export function applyPluginStatusEvents(deps: { kernel: Kernel; store: FaxJobStore; updates: JobUpdates; logger: Logger }): void {
  const { kernel, store, updates, logger } = deps;
  kernel.events.on('plugin-event', (event) => {
    if (event.topic !== FAX_STATUS_EVENT) return;
    const update = event.payload as FaxStatusUpdate;
    void (async () => {
      const row = await store.get(update.jobId);
      // A plugin may only report on jobs it sends.
      if (!row || row.backend !== event.pluginId) return;
      await updates.applyUpdate(row, { status: update.status, pages: update.pages, error: update.error, providerSid: update.providerSid, lineFailure: update.lineFailure }, 'event');
    })().catch((err) => logger.warn({ err: (err as Error).message }, 'fax status event not applied'));
  });
}
