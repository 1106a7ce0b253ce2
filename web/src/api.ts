// The console's one way to the gateway: the typed client, same routes, scopes and errors as any
// caller. The operator's key lives in sessionStorage and travels only in the X-API-Key header.
import { ApiError, createSwitchboardClient } from '../../clients/typescript/src/index.js';

export { ApiError, unwrap } from '../../clients/typescript/src/index.js';
export type * from '../../clients/typescript/src/responses.js';

const KEY_ITEM = 'switchboard.apiKey';

export function apiKey(): string {
  try {
    return sessionStorage.getItem(KEY_ITEM) ?? '';
  } catch {
    return '';
  }
}

export function setApiKey(key: string): void {
  if (key) sessionStorage.setItem(KEY_ITEM, key);
  else sessionStorage.removeItem(KEY_ITEM);
}

/** Same-origin requests to the gateway that serves the console, with the session's key read on every request. */
export const sb = createSwitchboardClient({ baseUrl: '', apiKey });

const keyNeeded = new Set<() => void>();

/** Subscribes to the gateway's 401s (the key form opens on one); answers the unsubscribe. */
export function onKeyNeeded(listener: () => void): () => void {
  keyNeeded.add(listener);
  return () => keyNeeded.delete(listener);
}

/**
 * A failure as the operator reads it: the API's own detail, then its status and code. Every
 * failure shown passes here, so a 401 from any page also asks for a key.
 */
export function errorText(err: unknown): string {
  if (err instanceof ApiError && err.status === 401) for (const listener of keyNeeded) listener();
  if (err instanceof ApiError) return err.status ? `${err.detail} (${err.status} ${err.code})` : err.detail;
  return err instanceof Error ? err.message : String(err);
}

/** Hands a downloaded body to the browser as a file: a blob link, so the key never goes into a URL. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
