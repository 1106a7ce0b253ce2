import { NotAcceptedError, PluginError, RejectedError, UncertainOutcomeError } from '../../../core/sdk/index.js';
import { NEVER_CONNECTED, retryAfterMs } from '../../../core/sdk/fax/index.js';
import { RequestRenderError } from './template-text.js';

function causeCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * What a failed call means for the host. `what` names the call ("send", "status") and is the
 * only context in the message: URLs may carry credentials, bodies phone numbers.
 */
export function failureOf(err: unknown, what: string, timeoutMs: number): PluginError {
  if (err instanceof RequestRenderError) return new RejectedError(`${what}: ${err.message}`, { cause: err });
  if ((err as PluginError)?.code === 'egress_denied') {
    const host = (err as { host?: string }).host ?? 'unknown';
    return new RejectedError(`${what}: host "${host}" is not in the manifest's egress list, so the request was refused (not retried)`, { cause: err });
  }
  if (err instanceof PluginError) return err;
  const name = (err as Error)?.name;
  if (name === 'TimeoutError') return new UncertainOutcomeError(`${what}: no answer within ${timeoutMs} ms after the request was sent`, { cause: err });
  if (name === 'AbortError') return new UncertainOutcomeError(`${what}: aborted after the request was sent`, { cause: err });
  const code = causeCode(err);
  if (code && NEVER_CONNECTED.has(code)) return new NotAcceptedError(`${what}: could not connect to the provider (${code})`, undefined, { cause: err });
  if (err instanceof Error && err.message.startsWith('too many redirects')) return new RejectedError(`${what}: too many redirects`, { cause: err });
  return new UncertainOutcomeError(`${what}: the connection failed after the request was sent${code ? ` (${code})` : ''}`, { cause: err });
}

/**
 * The error for a non-2xx answer, by the rules of the built-in hosted providers: 429, 408 and
 * 5xx were not accepted; 504 (a gateway gave up after forwarding) and unexpected 1xx/3xx may
 * have been; other 4xx were refused for good.
 */
export function errorForStatus(what: string, response: Response, providerMessage: string | undefined): PluginError {
  const said = providerMessage ? `: ${providerMessage}` : '';
  const status = response.status;
  if (status === 504) return new UncertainOutcomeError(`${what}: a gateway timed out after forwarding the request (HTTP 504)${said}`);
  if (status === 429 || status === 408 || status >= 500) {
    const reason = status === 429 ? 'provider is rate limiting' : status === 408 ? 'provider timed out reading the request' : 'provider failed';
    return new NotAcceptedError(`${what}: ${reason} (HTTP ${status})${said}`, retryAfterMs(response.headers.get('retry-after')));
  }
  if (status === 401 || status === 403) return new RejectedError(`${what}: provider refused the credentials (HTTP ${status}); check the secret settings${said}`);
  if (status >= 400) return new RejectedError(`${what}: provider rejected the request (HTTP ${status})${said}`);
  return new UncertainOutcomeError(`${what}: unexpected answer HTTP ${status}; the request may have been accepted`);
}
