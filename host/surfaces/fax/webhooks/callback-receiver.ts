import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxWebhookRequest } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { FaxJobStore } from '../jobs/job-store.js';
import type { JobUpdates } from '../jobs/job-updates.js';
import { callPluginWebhook } from './plugin-webhook.js';
import { faxErrors } from '../fax-errors.js';

/** Status callbacks of outbound faxes: verified and parsed by the plugin, applied by JobUpdates. */
export class CallbackReceiver {
  constructor(private readonly deps: { kernel: Kernel; audit: AuditLog; store: FaxJobStore; updates: JobUpdates }) {}

  async receive(pluginId: string, webhook: FaxWebhookRequest): Promise<{ ok: true; status: string }> {
    const { store, audit } = this.deps;
    const update = await callPluginWebhook(this.deps, pluginId, webhook, (fax) => fax.parseCallback ?? fax.parseWebhook, { status: 400, prefix: 'malformed callback' }, { job_id: webhook.query.job_id });
    const row = await store.get(update.jobId);
    // A plugin reports only on the jobs it sends.
    if (!row || row.backend !== pluginId) throw faxErrors.error('fax_job_not_found', { id: update.jobId });
    // A late callback about an attempt that was redialled since: acknowledged, changes nothing.
    if (update.providerSid && (await store.attempts.isSuperseded(row.id, update.providerSid))) return { ok: true, status: row.status };
    // Provider A signs only the body: a signed callback replayed under another job_id names
    // another fax, and is refused.
    if (row.provider_sid && update.providerSid && row.provider_sid !== update.providerSid) {
      audit.record('callback_rejected', { provider: pluginId, job_id: row.id, reason: 'provider id mismatch' });
      throw faxErrors.error('callback_job_mismatch');
    }
    await this.deps.updates.applyUpdate(row, { status: update.status, pages: update.pages, error: update.error, providerSid: update.providerSid, lineFailure: update.lineFailure }, 'callback');
    return { ok: true, status: (await store.get(row.id))?.status ?? update.status };
  }
}
