/**
 * The delay a server asks for before the next attempt, in milliseconds: `retry-after-ms`
 * (milliseconds) wins over `Retry-After` (delta-seconds or an HTTP date). Undefined when
 * neither is present or readable.
 */
export function serverRetryDelayMs(headers: Pick<Headers, 'get'>, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms.trim());
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const at = Date.parse(after);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
