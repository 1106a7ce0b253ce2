import { z } from 'zod';

/**
 * An error answered as `{"detail": ..., "code": ...}`. Routes do not build these by hand: they
 * throw `httpError(code, params)` from the catalogue (error-catalogue.ts), which fixes the
 * status and wording of each code.
 */
export class HttpError extends Error {
  readonly headers: Record<string, string> = {};
  /** Fields answered beside detail and code (the registry's manifest `diagnostics`). */
  readonly extra: Record<string, unknown> = {};

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  /** Adds response headers (Retry-After, Connection: close) and returns the same error. */
  withHeaders(headers: Record<string, string>): this {
    Object.assign(this.headers, headers);
    return this;
  }

  /** Adds fields to the error body; `detail` and `code` cannot be replaced. */
  withBody(extra: Record<string, unknown>): this {
    Object.assign(this.extra, extra);
    return this;
  }
}

/** The body of every error answer; one component (`ErrorBody`) in /openapi.json. */
export const ErrorBody = z.object({ detail: z.string().describe('What went wrong, for people'), code: z.string().describe('A stable code from docs/platform/errors.md, for programs') }).meta({ id: 'ErrorBody' });
