import { hmacHexMatches, WebhookRejectedError, type FaxStatusUpdate, type FaxWebhookRequest } from '../../sdk/index.js';
import type { HttpBlock, HttpCallback } from '../../manifest/index.js';
import { readResponsePath } from './response-path.js';
import { scalarText, statusFrom } from './response-map.js';

/** The route path of a manifest provider's status callbacks; `{{ callback_url }}` points here. */
export function callbackUrl(publicBaseUrl: string, pluginId: string, jobId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/webhooks/${encodeURIComponent(pluginId)}/callback?job_id=${encodeURIComponent(jobId)}`;
}

/**
 * Checks a webhook by the manifest's rule: only callbacks are taken (a manifest provider has no
 * inbound), signed ones only with a valid HMAC-SHA256 of the raw body (constant-time compare).
 */
export function verifyCallback(callback: HttpCallback, settings: Readonly<Record<string, unknown>>, request: FaxWebhookRequest): boolean {
  if (request.kind !== 'callback') return false;
  const signature = callback.signature;
  if (!signature) return true;
  const secret = settings[signature.secret];
  if (typeof secret !== 'string' || secret === '') {
    throw new WebhookRejectedError(503, 'not_configured', `the callback signature secret (setting "${signature.secret}") is not configured`);
  }
  return hmacHexMatches(request.rawBody, secret, request.headers[signature.header.toLowerCase()]);
}

/** A callback body's fields: JSON values by response path, or form fields by name. */
function reader(callback: HttpCallback, request: FaxWebhookRequest): (where: string | undefined) => unknown {
  if (callback.format === 'form') {
    const fields = new URLSearchParams(request.rawBody.toString('utf8'));
    return (where) => (where === undefined ? undefined : (fields.get(where) ?? undefined));
  }
  let body: unknown;
  try {
    body = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new Error('the callback body is not JSON');
  }
  return (where) => (where === undefined ? undefined : readResponsePath(body, where));
}

/** A verified callback as an update of the job it names (in the body, or the URL's `job_id`). */
export function parseCallback(block: Pick<HttpBlock, 'status_map' | 'default_status'>, callback: HttpCallback, request: FaxWebhookRequest): FaxStatusUpdate {
  const read = reader(callback, request);
  const jobId = callback.job_id ? scalarText(read(callback.job_id)) : request.query.job_id;
  if (!jobId) throw new Error(callback.job_id ? `the callback names no job at "${callback.job_id}"` : 'the callback URL has no job_id');
  const facts = statusFrom((where) => read(where), callback, block, 'in_progress');
  if (facts.raw === undefined) throw new Error(`the callback has no status at "${callback.status}"`);
  const providerSid = scalarText(read(callback.provider_sid));
  const update: FaxStatusUpdate = { ...facts, jobId };
  if (providerSid !== undefined) update.providerSid = providerSid;
  return update;
}
