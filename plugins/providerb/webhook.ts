import { basicAuthMatches, hmacHexMatches, parseWebhookJson, WebhookRejectedError, z, type FaxProvider } from 'switchboard/sdk';
import type { ProviderBInbound } from './settings.js';

export const SIGNATURE_HEADER = 'x-providerb-signature';

/** Provider B's inbound notice: `{id, from, to, num_pages, status, file_url}`. */
const InboundNotice = z.object({
  id: z.string().min(1).max(100),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  num_pages: z.number().int().min(0).optional(),
  status: z.string().max(50).default('received'),
  file_url: z.string().max(2000),
});

/**
 * Provider B's webhooks: inbound notices only (outbound results are polled). Basic auth when
 * inboundBasicUser is set, X-ProviderB-Signature when inboundHmacSecret is set; the document is
 * fetched by the host from mediaHosts only.
 */
export function providerBWebhooks(config: ProviderBInbound): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseInbound'>> {
  return {
    verifyWebhook(request) {
      const basic = config.inboundBasic;
      if (basic && !basicAuthMatches(request.headers.authorization, basic.user, basic.pass)) {
        throw new WebhookRejectedError(401, 'basic_auth', 'invalid or missing credentials');
      }
      return !config.inboundHmacSecret || hmacHexMatches(request.rawBody, config.inboundHmacSecret, request.headers[SIGNATURE_HEADER]);
    },
    parseInbound(request) {
      const body = parseWebhookJson(request, InboundNotice);
      return {
        providerId: body.id,
        from: body.from,
        to: body.to,
        status: body.status,
        pages: body.num_pages,
        document: { url: body.file_url, allowedHosts: config.mediaHosts },
      };
    },
  };
}
