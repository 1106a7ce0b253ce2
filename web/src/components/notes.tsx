import type { ComponentChildren } from 'preact';
import type { Action } from '../hooks/use-action.js';
import type { Loaded } from '../hooks/use-api.js';

export function ErrorNote({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** What an action ended with: the API's error, or its note as a status message. */
export function ActionOutcome({ action }: { action: Action }) {
  return (
    <>
      <ErrorNote error={action.error} />
      {action.note && <p role="status">{action.note}</p>}
    </>
  );
}

/**
 * A panel's loaded part: the API's error (or `error`, an action's), then the data once it came,
 * with a "Loading…" note until then when `loading` is asked for.
 */
export function WhenLoaded<T>({ loaded, error, loading = false, children }: { loaded: Loaded<T>; error?: string | undefined; loading?: boolean; children: (data: T) => ComponentChildren }) {
  return (
    <>
      <ErrorNote error={loaded.error ?? error} />
      {loaded.data !== undefined ? children(loaded.data) : loading && !loaded.error && <p class="note">Loading…</p>}
    </>
  );
}
