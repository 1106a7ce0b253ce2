/**
 * An error of the gateway's domain: a stable code of a vocabulary (docs/platform/errors.md) and
 * a message for people. Services throw these and know no status: the HTTP layer answers each
 * code with the status its owner's mapping gives it.
 */
export class DomainError extends Error {
  /** Fields answered beside `detail` and `code` (a manifest's `diagnostics`, say). */
  readonly details: Record<string, unknown> = {};
  /** When retrying may succeed, in seconds: answered as Retry-After (a limit that frees up, an outage). */
  retryAfterSeconds: number | undefined;

  constructor(
    readonly code: string,
    message: string,
    /**
     * Which of the code's documented answers applies, for the few codes that have several (a
     * malformed request line against an invalid body; the status a provider plugin chose for a
     * refused webhook). The mapping ignores a hint it does not document.
     */
    readonly statusHint?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DomainError';
  }

  /** Says when a retry may succeed (answered as Retry-After, at least one second). */
  retryAfter(seconds: number): this {
    this.retryAfterSeconds = Math.max(1, Math.ceil(seconds));
    return this;
  }

  /** Adds fields to the error's answer; `detail` and `code` cannot be replaced. */
  withDetails(details: Record<string, unknown>): this {
    Object.assign(this.details, details);
    return this;
  }
}
