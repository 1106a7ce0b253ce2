import { randomUUID } from 'node:crypto';
import { callbackUpdate, hmacHexMatches, parseWebhookJson, WebhookRejectedError, z, type FaxProvider } from 'switchboard/sdk';
import { SIGNATURE_HEADER } from './signature.js';
import { lineFailureOf, mapSimStatus } from './status-words.js';

/** A status callback of the simulator (JSON); the job rides in `?job_id=`. */
const Callback = z.object({
  sid: z.string().min(1).max(100),
  status: z.string().min(1).max(20),
  pages: z.number().int().min(0).optional(),
  error: z.string().max(500).optional(),
});

/**
 * An injected inbound fax: the PDF itself, base64. `id` makes a replay store nothing; without
 * one every notice is a new fax.
 */
const InboundNotice = z.object({
  id: z.string().min(1).max(100).optional(),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  pdf_base64: z.string().min(1),
});

/**
 * The simulator's webhooks, both signed with X-Fax-Sim-Signature (HMAC-SHA256 hex of the raw
 * body, keyed with the per-install secret): its own status callbacks, and inbound faxes that
 * whoever holds the secret injects.
 */
export function faxSimWebhooks(secret: string): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseCallback' | 'parseInbound'>> {
  return {
    verifyWebhook: (request) => hmacHexMatches(request.rawBody, secret, request.headers[SIGNATURE_HEADER]),
    parseCallback(request) {
      const body = parseWebhookJson(request, Callback);
      return callbackUpdate(request.query.job_id, { status: mapSimStatus(body.status), raw: body.status, providerSid: body.sid, pages: body.pages, error: body.error, lineFailure: lineFailureOf(body.status) });
    },
    parseInbound(request) {
      const body = parseWebhookJson(request, InboundNotice);
      const pdf = Buffer.from(body.pdf_base64, 'base64');
      return {
        providerId: body.id ?? `sim-in-${randomUUID()}`,
        from: body.from,
        to: body.to,
        status: 'received',
        document: {
          async read(maxBytes) {
            if (pdf.length > maxBytes) throw new WebhookRejectedError(413, 'too_large', `pdf_base64: document over ${maxBytes} bytes`);
            return pdf;
          },
        },
      };
    },
  };
}
