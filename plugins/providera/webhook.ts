import { formCallbackUpdate, hmacHexMatches, parseWebhookJson, z, type FaxProvider, type FaxStatusUpdate, type FaxWebhookRequest } from 'switchboard/sdk';
import { callbackFields } from './callback-form.js';
import type { ProviderAConfig, ProviderAInbound } from './settings.js';
import { mapProviderAStatus, providerAError, providerALineFailure } from './status-map.js';

export const SIGNATURE_HEADER = 'x-providera-signature';

/** A status callback (`fax[id]`, `fax[status]`, ...) as an update of the job named by `job_id`. */
export function parseProviderACallback(request: FaxWebhookRequest): FaxStatusUpdate {
  const fields = callbackFields(request.rawBody, request.contentType);
  return formCallbackUpdate(request, fields, 'provider A', { status: 'fax[status]', providerSid: 'fax[id]', pages: 'fax[num_pages]' }, (raw, field) => ({
    status: mapProviderAStatus(raw),
    error: providerAError(raw, field('fax[error_type]'), field('fax[error_message]')),
    lineFailure: providerALineFailure(raw, field('fax[error_type]')),
  }));
}

/** Provider A's inbound notice: `{"fax": {id, from, to, num_pages, status, file_url}}`. */
const InboundNotice = z.object({
  fax: z.object({
    id: z.union([z.number().int(), z.string().min(1).max(100)]),
    from: z.string().max(40).optional(),
    to: z.string().max(40).optional(),
    num_pages: z.number().int().min(0).optional(),
    status: z.string().max(50).default('received'),
    file_url: z.string().max(2000),
  }),
});

/** Provider A's inbound notices, signed with X-ProviderA-Signature unless inboundVerifySignature is off. */
export function providerAInbound(config: ProviderAInbound): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseInbound'>> {
  return {
    verifyWebhook: (request) => !config.inboundVerifySignature || hmacHexMatches(request.rawBody, config.apiSecret, request.headers[SIGNATURE_HEADER]),
    parseInbound(request) {
      const { fax } = parseWebhookJson(request, InboundNotice);
      return {
        providerId: String(fax.id),
        from: fax.from,
        to: fax.to,
        status: fax.status,
        pages: fax.num_pages,
        document: { url: fax.file_url, allowedHosts: config.mediaHosts },
      };
    },
  };
}

/**
 * Provider A's webhooks: both kinds are signed with X-ProviderA-Signature (HMAC-SHA256 of the
 * raw body with the API secret); callbacks when verifySignature is on, inbound notices unless
 * inboundVerifySignature is off. Inbound documents are fetched by the host from mediaHosts only.
 */
export function providerAWebhooks(config: ProviderAConfig): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseCallback' | 'parseInbound'>> {
  const inbound = providerAInbound(config);
  return {
    verifyWebhook(request) {
      if (request.kind === 'inbound') return inbound.verifyWebhook(request);
      return !config.verifySignature || hmacHexMatches(request.rawBody, config.apiSecret, request.headers[SIGNATURE_HEADER]);
    },
    parseCallback: parseProviderACallback,
    parseInbound: inbound.parseInbound,
  };
}
