import type { FaxProvider, FaxProviderStatus, PluginLogger } from 'switchboard/sdk';
import { providerStatus } from 'switchboard/sdk/fax';
import type { ProviderCClient, ProviderCFax } from './client.js';
import type { ProviderCConfig } from './settings.js';
import { providerCSendForm } from './send-request.js';
import { mapProviderCStatus, providerCError, providerCLineFailure } from './status-map.js';

function statusOf(fax: ProviderCFax): FaxProviderStatus {
  const code = fax.error_code === null || fax.error_code === undefined ? undefined : String(fax.error_code);
  const error = providerCError(fax.status, code, fax.error_message ?? undefined);
  return providerStatus(mapProviderCStatus(fax.status), { providerSid: fax.sid, pages: fax.num_pages, error, raw: fax.status, lineFailure: providerCLineFailure(fax.status) });
}

/** Provider C as a fax provider: sends, looks up (by sid or by our PDF URL), cancels, takes callbacks. */
export function createProviderC(client: ProviderCClient, config: ProviderCConfig, logger: PluginLogger): FaxProvider {
  return {
    pushesResults: true,

    async send(request) {
      try {
        const fax = await client.createFax(providerCSendForm(request, config.faxFrom), request.signal);
        logger.info('fax accepted by provider C', { jobId: request.jobId, providerSid: fax.sid });
        return { ...statusOf(fax), providerSid: fax.sid };
      } catch (err) {
        // The provider's message can echo the number; the outcome code is enough for the log.
        logger.warn('fax send to provider C failed', { jobId: request.jobId, outcome: (err as { code?: string }).code ?? 'error' });
        throw err;
      }
    },

    async status(ref) {
      const fax = ref.providerSid ? await client.getFax(ref.providerSid) : await client.findByDocument(ref.jobId, ref.to);
      return fax ? statusOf(fax) : null;
    },

    async cancel(ref) {
      const sid = ref.providerSid ?? (await client.findByDocument(ref.jobId, ref.to))?.sid;
      // No record at the provider: nothing was accepted, so there is nothing to cancel.
      if (!sid) return;
      await client.cancelFax(sid);
      logger.info('fax cancelled at provider C', { jobId: ref.jobId, providerSid: sid });
    },
  };
}
