/** How a plugin whose start said "not ready" is retried: doubling delays up to a ceiling. */
export interface RetryBackoff {
  initialMs: number;
  maxMs: number;
}

/** The delay before retry number `attempt` (1-based). */
export function retryDelay(attempt: number, backoff: RetryBackoff): number {
  return Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, attempt - 1));
}
