import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { faxErrors } from '../fax-errors.js';
import { CANCELED_ERROR, isFinal } from './job-states.js';
import type { FaxJobRow, FaxJobStore } from './job-store.js';

/** What a cancel came to: the job ended before anything was sent, or its provider was asked to stop the send under way. */
export type CancelOutcome = 'canceled' | 'cancel_requested';

/**
 * POST /fax/{id}/cancel. A job no dispatcher holds (waiting, scheduled, between redials) ends
 * FAILED with error `canceled` (the spec's statuses stay) and fires fax.canceled. A send under
 * way is the provider's to stop: its plugin's `cancel` is asked, then polled once, and
 * the job ends as the provider reports; without one the answer says the gateway cannot stop it.
 */
export class JobCancel {
  constructor(private readonly deps: { store: FaxJobStore; kernel: Kernel; audit: AuditLog; onCanceled?: (row: FaxJobRow) => Promise<void>; lookUp?: (row: FaxJobRow) => Promise<unknown> }) {}

  async cancel(row: FaxJobRow, by: string): Promise<{ row: FaxJobRow; outcome: CancelOutcome }> {
    const { store, kernel, audit } = this.deps;
    if (isFinal(row.status)) throw faxErrors.error('fax_already_final', { status: row.status });
    if (await store.cancelWaiting(row.id, CANCELED_ERROR)) {
      const ended = (await store.get(row.id))!;
      audit.record('job_canceled', { job_id: row.id, backend: row.backend, before_dispatch: true, by });
      await this.deps.onCanceled?.(ended);
      return { row: ended, outcome: 'canceled' };
    }
    const now = (await store.get(row.id))!;
    if (isFinal(now.status)) throw faxErrors.error('fax_already_final', { status: now.status });
    const asked = await kernel.withProvider('fax', now.backend, async (fax) => {
      if (!fax.cancel) return false;
      await fax.cancel({ jobId: now.id, to: now.to_number, sentAt: new Date(now.sent_at ?? Date.parse(now.created_at)), ...(now.provider_sid ? { providerSid: now.provider_sid } : {}) });
      return true;
    });
    if (!asked) throw faxErrors.error('fax_cancel_unsupported', { backend: now.backend });
    audit.record('job_cancel_requested', { job_id: now.id, backend: now.backend, by });
    // A provider that stops a fax need not call back about it: ask it for the outcome now.
    await this.deps.lookUp?.(now).catch(() => {});
    return { row: (await store.get(row.id))!, outcome: 'cancel_requested' };
  }
}
