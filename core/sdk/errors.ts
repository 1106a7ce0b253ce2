/**
 * Typed errors a plugin throws to choose its next lifecycle state, and the errors
 * a provider call uses to tell the host what a failure means.
 */
export class PluginError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/**
 * The base of the errors that carry only a message (and a cause): each names its code once, as
 * `class NotReadyError extends messageError('not_ready') {}`.
 */
function messageError(code: string) {
  return class extends PluginError {
    constructor(message: string, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}

/** A dependency is not there yet: the host retries start with backoff. */
export class NotReadyError extends messageError('not_ready') {}

/** Settings are missing or wrong: the plugin waits in `needs-config` until they change. */
export class ConfigError extends PluginError {
  constructor(message: string, readonly field?: string, options?: { cause?: unknown }) {
    super('config', message, options);
  }
}

/** Credentials were refused: the plugin waits in `needs-config` until they change. */
export class AuthError extends messageError('auth') {}

/** A request went to a host outside the manifest's `egress` list. */
export class EgressDeniedError extends PluginError {
  constructor(readonly host: string) {
    super('egress_denied', `egress to host "${host}" is not allowed by the manifest`);
  }
}

/**
 * The provider certainly did not accept the request (connection refused, a 5xx or 429
 * answer before acceptance): sending again cannot duplicate anything.
 */
export class NotAcceptedError extends PluginError {
  constructor(message: string, readonly retryAfterMs?: number, options?: { cause?: unknown }) {
    super('not_accepted', message, options);
  }
}

/** The provider refused the request for good (a 4xx on bad input): retrying cannot help. */
export class RejectedError extends messageError('rejected') {}

/**
 * The request may have been accepted (timeout or connection loss after it was sent).
 * The host must resolve it by asking the provider, never by sending again.
 */
export class UncertainOutcomeError extends messageError('uncertain') {}

/**
 * A provider webhook is refused. `status` is the HTTP answer (401 bad credentials, 403 a path
 * outside what is allowed, 413 too large, 422 malformed, 503 a secret the check needs is not
 * configured); `reason` is a short word for the audit record. The message is sent as `detail`:
 * never put a secret or a number in it.
 */
export class WebhookRejectedError extends PluginError {
  readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 503;
  readonly reason: string;
  constructor(status: WebhookRejectedError['status'], reason: string, message: string) {
    super('webhook_rejected', message);
    this.status = status;
    this.reason = reason;
  }
}
