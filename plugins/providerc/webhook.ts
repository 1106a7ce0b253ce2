import { createHmac } from 'node:crypto';
import { formCallbackUpdate, sameSecret, type FaxProvider, type FaxStatusUpdate, type FaxWebhookRequest } from 'switchboard/sdk';
import type { ProviderCConfig } from './settings.js';
import { mapProviderCStatus, providerCError, providerCLineFailure } from './status-map.js';

export const SIGNATURE_HEADERS = ['x-signalwire-signature', 'x-twilio-signature'] as const;

/**
 * The Twilio-compatible request signature: base64 HMAC-SHA1, keyed with the API token, of the
 * called URL followed by every POST parameter's name and value, sorted by name.
 */
export function providerCSignature(url: string, params: Iterable<[string, string]>, apiToken: string): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  const data = url + sorted.map(([name, value]) => name + value).join('');
  return createHmac('sha1', apiToken).update(data, 'utf8').digest('base64');
}

function formParams(request: FaxWebhookRequest): Array<[string, string]> {
  return [...new URLSearchParams(request.rawBody.toString('utf8'))];
}

/** True when X-SignalWire-Signature (or X-Twilio-Signature) matches; compared in constant time. */
export function verifyProviderCSignature(request: FaxWebhookRequest, apiToken: string): boolean {
  const header = SIGNATURE_HEADERS.map((name) => request.headers[name]).find((v): v is string => typeof v === 'string');
  if (!header) return false;
  return sameSecret(header.trim(), providerCSignature(request.url, formParams(request), apiToken));
}

/** A status callback (FaxSid, FaxStatus, NumPages, ErrorCode, ErrorMessage) for the job in `job_id`. */
export function parseProviderCCallback(request: FaxWebhookRequest): FaxStatusUpdate {
  return formCallbackUpdate(request, new Map(formParams(request)), 'provider C', { status: 'FaxStatus', providerSid: 'FaxSid', pages: 'NumPages' }, (raw, field) => ({
    status: mapProviderCStatus(raw),
    error: providerCError(raw, field('ErrorCode'), field('ErrorMessage')),
    lineFailure: providerCLineFailure(raw),
  }));
}

/** Provider C's webhooks: status callbacks only (it has no inbound notice here). */
export function providerCWebhooks(config: ProviderCConfig): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseCallback'>> {
  return {
    // Only callbacks reach here: without parseInbound the host answers 404 to inbound.
    verifyWebhook: (request) => !config.verifySignature || verifyProviderCSignature(request, config.apiToken),
    parseCallback: parseProviderCCallback,
  };
}
