import { useState } from 'preact/hooks';
import { errorText } from '../api.js';

export interface Action {
  /** What is running now (the label given to `run`), or null. */
  busy: string | null;
  error: string | undefined;
  /** What the last run reported when it succeeded. */
  note: string | undefined;
  /**
   * Runs `work`: busy meanwhile, its returned text the note, a failure the API's error (prefixed
   * with `label` when asked). It never rejects.
   */
  run(work: () => Promise<string | void>, options?: { label?: string; prefixError?: boolean }): Promise<void>;
  /** A failure found before any request (a field the API would refuse); it replaces the note. */
  setError(error: string | undefined): void;
}

/** The state of a form's submit or a button's request: busy, then a note or the API's error. */
export function useAction(): Action {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [note, setNote] = useState<string>();
  const run: Action['run'] = async (work, { label = 'working', prefixError = false } = {}) => {
    setBusy(label);
    setError(undefined);
    setNote(undefined);
    try {
      const said = await work();
      if (typeof said === 'string') setNote(said);
    } catch (err) {
      setError(prefixError ? `${label}: ${errorText(err)}` : errorText(err));
    } finally {
      setBusy(null);
    }
  };
  return { busy, error, note, run, setError: (e) => (setError(e), setNote(undefined)) };
}
