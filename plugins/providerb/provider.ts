import type { FaxProvider, FaxProviderStatus, PluginLogger } from 'switchboard/sdk';
import { providerStatus } from 'switchboard/sdk/fax';
import type { ProviderBClient, ProviderBFax } from './client.js';
import type { ProviderBConfig } from './settings.js';
import { providerBSendBody } from './send-request.js';
import { mapProviderBStatus } from './status-map.js';

function statusOf(fax: ProviderBFax): FaxProviderStatus {
  const status = mapProviderBStatus(fax.status);
  const error = status === 'FAILED' ? (fax.errorMessage || (fax.errorCode ? String(fax.errorCode) : undefined) || fax.status) : undefined;
  return providerStatus(status, { providerSid: fax.id, pages: fax.numberOfPages ?? fax.num_pages, error, raw: fax.status });
}

/**
 * Provider B as a fax provider: sends, and polls for results (it pushes no outbound status).
 * It has no cancel.
 */
export function createProviderB(client: ProviderBClient, config: ProviderBConfig, logger: PluginLogger): FaxProvider {
  return {
    pushesResults: false,

    async send(request) {
      const { body, contentType } = await providerBSendBody(request, config.sendMode);
      try {
        const fax = await client.createFax(body, contentType, request.signal);
        logger.info('fax accepted by provider B', { jobId: request.jobId, providerSid: fax.id, sendMode: config.sendMode });
        return { ...statusOf(fax), providerSid: fax.id };
      } catch (err) {
        // The provider's message can echo the number; the outcome code is enough for the log.
        logger.warn('fax send to provider B failed', { jobId: request.jobId, outcome: (err as { code?: string }).code ?? 'error' });
        throw err;
      }
    },

    async status(ref) {
      if (ref.providerSid) {
        const fax = await client.getFax(ref.providerSid);
        return fax ? statusOf(fax) : null;
      }
      // An uploaded file carries nothing of ours that the list shows, so "not found" would be
      // a guess; saying so keeps the host from resending a fax that may exist.
      if (config.sendMode === 'upload') {
        throw new Error('provider B cannot find an uploaded fax without its id; check the provider console before resending');
      }
      const fax = await client.findByDocument(ref.jobId, ref.to);
      return fax ? statusOf(fax) : null;
    },
  };
}
