import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FaxStatusUpdate, FaxWebhookRequest } from 'switchboard/sdk';
import { callbackFields } from './callback-form.js';
import { mapProviderAStatus, providerAError } from './status-map.js';

export const SIGNATURE_HEADER = 'x-providera-signature';

/** HMAC-SHA256 of the raw body with the API secret, lowercase hex (the spec's rule). */
export function providerASignature(rawBody: Buffer, apiSecret: string): string {
  return createHmac('sha256', apiSecret).update(rawBody).digest('hex');
}

/** True when X-ProviderA-Signature matches the body; compared in constant time. */
export function verifyProviderASignature(request: FaxWebhookRequest, apiSecret: string): boolean {
  const header = request.headers[SIGNATURE_HEADER];
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  const expected = Buffer.from(providerASignature(request.rawBody, apiSecret), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A status callback (`fax[id]`, `fax[status]`, ...) as an update of the job named by `job_id`. */
export function parseProviderACallback(request: FaxWebhookRequest): FaxStatusUpdate {
  const jobId = request.query.job_id;
  if (!jobId) throw new Error('provider A callback without job_id in its query');
  const fields = callbackFields(request.rawBody, request.contentType);
  const raw = fields.get('fax[status]');
  if (!raw) throw new Error('provider A callback without fax[status]');
  const pages = Number.parseInt(fields.get('fax[num_pages]') ?? '', 10);
  const error = providerAError(raw, fields.get('fax[error_type]') || undefined, fields.get('fax[error_message]') || undefined);
  const providerSid = fields.get('fax[id]');
  return {
    jobId,
    status: mapProviderAStatus(raw),
    ...(providerSid ? { providerSid } : {}),
    ...(Number.isFinite(pages) && pages >= 0 ? { pages } : {}),
    ...(error ? { error } : {}),
    raw,
  };
}
