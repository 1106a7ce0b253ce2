import { PluginNotAvailableError, type Kernel } from '../../../../core/kernel/kernel.js';
import { WebhookRejectedError, type FaxProvider, type FaxWebhookRequest } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { faxErrors } from '../fax-errors.js';
import { invalidInput, malformedInput, platformErrors } from '../../../platform/errors/platform-errors.js';

/** Audit events of refused webhooks, per kind. */
const REJECTED_EVENT = { callback: 'callback_rejected', inbound: 'inbound_rejected' } as const;

/**
 * Hands a webhook to the fax plugin `pluginId`: its verifyWebhook checks the credentials with
 * the plugin's own settings, then `parse` (the plugin's parseCallback or parseInbound) reads it.
 * The host never sees a secret; it maps the plugin's verdicts to HTTP and audits refusals.
 */
export async function callPluginWebhook<T>(
  deps: { kernel: Kernel; audit: AuditLog },
  pluginId: string,
  webhook: FaxWebhookRequest,
  parser: (fax: FaxProvider) => ((request: FaxWebhookRequest) => T | Promise<T>) | undefined,
  malformed: { status: 400 | 422; prefix: string },
  context: Record<string, string | undefined> = {},
): Promise<T> {
  const reject = (status: number, reason: string, detail: string): never => {
    deps.audit.record(REJECTED_EVENT[webhook.kind], { provider: pluginId, reason, ...context });
    throw faxErrors.errorWithHint('webhook_rejected', status, { reason: detail });
  };
  try {
    return await deps.kernel.withProvider('fax', pluginId, async (fax) => {
      const parse = parser(fax);
      if (!fax.verifyWebhook || !parse) throw faxErrors.error('webhook_not_taken', { pluginId, kind: webhook.kind === 'callback' ? 'callbacks' : 'inbound faxes' });
      try {
        if (!(await fax.verifyWebhook(webhook))) reject(401, 'signature', 'invalid or missing signature');
      } catch (err) {
        if (err instanceof WebhookRejectedError) reject(err.status, err.reason, err.message);
        throw err;
      }
      try {
        return await parse.call(fax, webhook);
      } catch (err) {
        if (err instanceof WebhookRejectedError) reject(err.status, err.reason, err.message);
        throw (malformed.status === 400 ? malformedInput : invalidInput)(malformed.prefix, (err as Error).message);
      }
    });
  } catch (err) {
    if (err instanceof PluginNotAvailableError) {
      // Unknown, or active without a fax provider: nothing here takes webhooks. Otherwise it may come back.
      if (err.state === 'unknown' || err.state === 'active') throw faxErrors.error('webhook_not_taken', { pluginId });
      throw platformErrors.error('plugin_not_available', { reason: err.message });
    }
    throw err;
  }
}
