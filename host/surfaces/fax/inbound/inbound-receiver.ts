import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxInboundDocument, FaxWebhookRequest } from '../../../../core/sdk/index.js';
import { WebhookRejectedError } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { FaxConfig } from '../fax-settings.js';
import { callPluginWebhook } from '../webhooks/plugin-webhook.js';
import type { InboundService } from './inbound-service.js';
import { fetchMedia } from './media-fetch.js';
import { faxErrors } from '../fax-errors.js';
import { platformErrors } from '../../../platform/errors/platform-errors.js';

/**
 * Inbound-fax notices: verified and parsed by the provider's plugin; the host stores the fax
 * (idempotent on plugin id + the provider's id) and loads its document only when it is new:
 * a download limited to the hosts the plugin allows, or the plugin's own read.
 */
export class InboundReceiver {
  constructor(private readonly deps: { kernel: Kernel; audit: AuditLog; config: FaxConfig; service: InboundService }) {}

  /** 404 "inbound is disabled" unless INBOUND_ENABLED. */
  requireEnabled(): void {
    if (!this.deps.config.get('INBOUND_ENABLED')) throw faxErrors.error('inbound_disabled');
  }

  async receive(pluginId: string, webhook: FaxWebhookRequest): Promise<{ ok: true; id: string; duplicate: boolean }> {
    this.requireEnabled();
    const notice = await callPluginWebhook(this.deps, pluginId, webhook, (fax) => fax.parseInbound, { status: 422, prefix: 'malformed notice' });
    const { row, duplicate } = await this.deps.service.receive({
      provider: pluginId,
      providerId: notice.providerId,
      from: notice.from,
      to: notice.to,
      status: notice.status,
      pages: notice.pages,
      document: () => this.load(pluginId, notice.document),
    });
    return { ok: true, id: row.id, duplicate };
  }

  private async load(pluginId: string, document: FaxInboundDocument): Promise<Buffer> {
    const { config, audit } = this.deps;
    const maxBytes = config.get('MAX_FILE_SIZE_MB') * 1024 * 1024;
    if ('url' in document) {
      return fetchMedia(document.url, {
        allowedHosts: document.allowedHosts,
        maxBytes,
        timeoutMs: config.get('INBOUND_MEDIA_TIMEOUT_SECONDS') * 1000,
        onDenied: (u) => audit.record('inbound_rejected', { provider: pluginId, reason: 'media_host', host: u.host }),
      });
    }
    try {
      const bytes = await document.read(maxBytes);
      if (bytes.length > maxBytes) throw platformErrors.error('payload_too_large', { what: 'document', limit: `${maxBytes} bytes` });
      return bytes;
    } catch (err) {
      if (err instanceof WebhookRejectedError) {
        audit.record('inbound_rejected', { provider: pluginId, reason: err.reason });
        throw faxErrors.errorWithHint('webhook_rejected', err.status, { reason: err.message });
      }
      throw err;
    }
  }
}
