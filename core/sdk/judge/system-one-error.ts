/** Why a judgment backend could not answer; also the `outcome` label of the request metrics. */
export type SystemOneOutcome = 'timeout' | 'unavailable' | 'rate_limited' | 'http_error' | 'invalid_response' | 'cancelled';

/**
 * A judgment backend could not answer. The caller fails with it: there is no switching to the
 * other backend and no default answer.
 */
export class SystemOneError extends Error {
  constructor(
    readonly outcome: SystemOneOutcome,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SystemOneError';
  }
}

export function isSystemOneError(err: unknown): err is SystemOneError {
  return err instanceof Error && err.name === 'SystemOneError' && typeof (err as SystemOneError).outcome === 'string';
}
