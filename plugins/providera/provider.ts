import type { FaxProvider, FaxProviderStatus, PluginLogger } from 'switchboard/sdk';
import { providerStatus } from 'switchboard/sdk/fax';
import type { ProviderAClient, ProviderAFax } from './client.js';
import type { ProviderAConfig } from './settings.js';
import { providerASendForm } from './send-request.js';
import { mapProviderAStatus, providerAError, providerALineFailure } from './status-map.js';

function statusOf(fax: ProviderAFax): FaxProviderStatus {
  const recipient = fax.recipients?.[0];
  const type = fax.error_type ?? recipient?.error_type ?? undefined;
  const error = providerAError(fax.status, type, fax.error_message ?? recipient?.error_message ?? undefined);
  return providerStatus(mapProviderAStatus(fax.status), { providerSid: String(fax.id), pages: fax.num_pages, error, raw: fax.status, lineFailure: providerALineFailure(fax.status, type) });
}

/** Provider A as a fax provider: sends, looks up (by id or by our tag), cancels, takes callbacks (webhook members: webhook.ts). */
export function createProviderA(client: ProviderAClient, config: ProviderAConfig, logger: PluginLogger): FaxProvider {
  return {
    pushesResults: true,

    async send(request) {
      const form = await providerASendForm(request, config.sendMode);
      try {
        const { id } = await client.createFax(form, request.signal);
        logger.info('fax accepted by provider A', { jobId: request.jobId, providerSid: id, sendMode: config.sendMode });
        return { providerSid: id, status: 'queued' };
      } catch (err) {
        // The provider's message can echo the number; the outcome code is enough for the log.
        logger.warn('fax send to provider A failed', { jobId: request.jobId, outcome: (err as { code?: string }).code ?? 'error' });
        throw err;
      }
    },

    async status(ref) {
      const fax = ref.providerSid ? await client.getFax(ref.providerSid) : await client.findByJobId(ref.jobId);
      return fax ? statusOf(fax) : null;
    },

    async cancel(ref) {
      const providerSid = ref.providerSid ?? (await client.findByJobId(ref.jobId))?.id;
      // No record at the provider: nothing was accepted, so there is nothing to cancel.
      if (providerSid === undefined) return;
      await client.cancelFax(String(providerSid));
      logger.info('fax cancelled at provider A', { jobId: ref.jobId, providerSid: String(providerSid) });
    },
  };
}
