import { retryAfterMs } from '../retry-after.js';
import { EgressDeniedError, NotAcceptedError, RejectedError, UncertainOutcomeError, type PluginError } from '../errors.js';

/**
 * Outcome rules for HTTP fax providers, shared by code plugins and the manifest `http` runtime so
 * every provider classifies a failed call the same way: only what certainly never reached the
 * provider is NotAccepted (safe to retry).
 */

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

/** Who was called, for what, and which settings hold its credentials: the words of every outcome. */
export interface CallSubject {
  /** Names the provider in messages: `provider A`, or a manifest's name. */
  provider: string;
  /** The settings to check when the credentials are refused: `apiKey and apiSecret`. */
  credentials: string;
  /** The call: `send` (the default) is about a fax, any other about that request. */
  action?: string;
}

function requestOf(subject: CallSubject): string {
  const action = subject.action ?? 'send';
  return action === 'send' ? 'fax' : `${action} request`;
}

/**
 * What a failed fetch means. Only a connection that was never made is "not accepted"; a timeout
 * or a dropped connection may have delivered the request; a redirect loop is refused for good.
 * An egress refusal is passed on as is.
 */
export function transportFailure(err: unknown, timeoutMs: number, subject: CallSubject): PluginError {
  if (err instanceof EgressDeniedError) return err;
  const { provider } = subject;
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new UncertainOutcomeError(`${provider} gave no answer within ${timeoutMs} ms; the ${requestOf(subject)} may have been accepted`, { cause: err });
  }
  // Every hop was answered with a redirect: no server took the request, and sending again would loop.
  if (err instanceof Error && err.message.startsWith('too many redirects')) {
    return new RejectedError(`${provider} answered only with redirects (too many); check its URL`, { cause: err });
  }
  const codes = errorCodes(err);
  const code = codes.find((c) => NEVER_CONNECTED.has(c));
  if (code) return new NotAcceptedError(`${provider} unreachable (${code})`, undefined, { cause: err });
  return new UncertainOutcomeError(`connection to ${provider} failed after the request was sent (${codes[0] ?? (err as Error)?.message ?? 'unknown'})`, { cause: err });
}

export { retryAfterMs } from '../retry-after.js';

/**
 * The error a non-2xx answer means. `message` is the provider's own text; any phone number in it
 * is replaced, since providers often echo the destination and errors are stored and logged.
 */
export function answerFailure(status: number, answer: { message?: string | undefined; retryAfter?: string | null | undefined }, subject: CallSubject): PluginError {
  const { provider } = subject;
  const request = requestOf(subject);
  const said = answer.message ? `: ${answer.message.replace(/\+?\d[\d\s().-]{4,}\d/g, '[number]')}` : '';
  if (status === 401 || status === 403) {
    return new RejectedError(`${provider} refused the credentials (HTTP ${status}); check ${subject.credentials}${said}`);
  }
  // A gateway timeout means the request went upstream and its fate is unknown.
  if (status === 504) return new UncertainOutcomeError(`${provider} gateway timed out (HTTP 504); the ${request} may have been accepted${said}`);
  if (status === 408 || status === 429 || status >= 500) {
    return new NotAcceptedError(`${provider} did not accept the ${request} (HTTP ${status})${said}`, retryAfterMs(answer.retryAfter));
  }
  if (status >= 400) return new RejectedError(`${provider} rejected the ${request} (HTTP ${status})${said}`);
  return new UncertainOutcomeError(`${provider} answered HTTP ${status} to a ${subject.action ?? 'send'}; the ${request} may have been accepted`);
}
