import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from './api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** GETs a path (re-fetched when it changes, or every `refreshMs`), keeping the last good data on error. */
export function useApi<T>(path: string | null, refreshMs?: number, acceptStatus?: number[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(path !== null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (path === null) return;
    const ctl = new AbortController();
    setLoading(true);
    api<T>(path, { signal: ctl.signal, ...(acceptStatus ? { acceptStatus } : {}) })
      .then((d) => (setData(d), setError(undefined)))
      .catch((e: unknown) => {
        if (!ctl.signal.aborted) setError(errorText(e));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    return () => ctl.abort();
  }, [path, tick]);
  useEffect(() => {
    if (!refreshMs) return;
    const id = setInterval(reload, refreshMs);
    return () => clearInterval(id);
  }, [refreshMs, reload]);
  return { data, error, loading, reload };
}

/** Moves focus to the page heading when the page changes, so screen readers announce it. */
export function useFocusHeading<T extends HTMLElement>(key: string) {
  const ref = useRef<T>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    ref.current?.focus();
  }, [key]);
  return ref;
}
