/**
 * An error of the gateway's domain: a stable code of a vocabulary (docs/platform/errors.md) and
 * a message for people. Services throw these and know no status: the HTTP layer answers each
 * code with the status its owner's mapping gives it.
 */
export class DomainError extends Error {
  /** Fields answered beside `detail` and `code` (a manifest's `diagnostics`, say). */
  readonly details: Record<string, unknown> = {};

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

  /** Adds fields to the error's answer; `detail` and `code` cannot be replaced. */
  withDetails(details: Record<string, unknown>): this {
    Object.assign(this.details, details);
    return this;
  }
}
