import { EgressDeniedError, NotAcceptedError, RejectedError, UncertainOutcomeError } from '../errors.js';

/**
 * Error codes of a connection that never carried the request (refused, unresolvable, or a TLS
 * handshake that failed before a byte of it left): nothing can have been accepted.
 */
export const NEVER_CONNECTED: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function errorCodes(err: unknown, depth = 0): string[] {
  if (depth > 5 || typeof err !== 'object' || err === null) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => errorCodes(x, depth + 1)) : [];
  return [...own, ...nested, ...errorCodes(e.cause, depth + 1)];
}

/**
 * Outcome rules for HTTP fax providers, shared so every plugin classifies a failed send the
 * same way: only what certainly never reached the provider is NotAccepted (safe to retry).
 */

/**
 * What a failed fetch of a send means. Only a connection that was never made is "not accepted";
 * a timeout or a dropped connection may have delivered the request.
 */
export function sendTransportFailure(err: unknown, timeoutMs: number, provider: string): Error {
  if (err instanceof EgressDeniedError) return err;
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new UncertainOutcomeError(`${provider} gave no answer within ${timeoutMs} ms; the fax may have been accepted`);
  }
  const codes = errorCodes(err);
  const code = codes.find((c) => NEVER_CONNECTED.has(c));
  if (code) return new NotAcceptedError(`${provider} unreachable (${code})`);
  return new UncertainOutcomeError(`connection to ${provider} failed after the request was sent (${codes[0] ?? (err as Error)?.message ?? 'unknown'})`);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The error a non-2xx answer to a send means; `message` is the provider's own text. */
export function sendAnswerFailure(status: number, message: string, retryAfter: string | null, provider: string, credentials: string): Error {
  // Providers often echo the destination in their messages: never carry a number onward.
  const said = message ? `: ${message.replace(/\+?\d[\d\s().-]{4,}\d/g, '[number]')}` : '';
  if (status === 401 || status === 403) {
    return new RejectedError(`${provider} refused the credentials (HTTP ${status}); check ${credentials}${said}`);
  }
  // A gateway timeout means the request went upstream and its fate is unknown.
  if (status === 504) return new UncertainOutcomeError(`${provider} gateway timed out (HTTP 504); the fax may have been accepted`);
  if (status === 408 || status === 429 || status >= 500) {
    return new NotAcceptedError(`${provider} did not accept the fax (HTTP ${status})${said}`, retryAfterMs(retryAfter));
  }
  if (status >= 400) return new RejectedError(`${provider} rejected the fax (HTTP ${status})${said}`);
  return new UncertainOutcomeError(`${provider} answered HTTP ${status} to a send; the fax may have been accepted`);
}
