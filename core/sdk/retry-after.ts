/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (!header || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The delay a server asks for before the next attempt, in milliseconds: `retry-after-ms`
 * (milliseconds) wins over `Retry-After`. Undefined when neither is present or readable.
 */
export function serverRetryDelayMs(headers: Pick<Headers, 'get'>, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms.trim());
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  return retryAfterMs(headers.get('retry-after'), now);
}
