import { useCallback, useEffect, useState } from 'preact/hooks';
import type { paths } from '../../../clients/typescript/src/schema.js';
import { ApiError, errorText, sb, unwrap, type ApiResponse } from '../api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  /** The API's code of the last failure (`inbound_disabled`): a panel may read a default state from it instead of an error. */
  errorCode: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `load` (again when a dependency changes, on `reload`, or every `refreshMs`), keeping
 * the last good data on error. A null `load` loads nothing (a page still waiting for its repository).
 */
export function useApi<T>(load: ((signal: AbortSignal) => Promise<T>) | null, deps: readonly unknown[], refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [errorCode, setErrorCode] = useState<string>();
  const [loading, setLoading] = useState(load !== null);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    if (load === null) return;
    const ctl = new AbortController();
    setLoading(true);
    load(ctl.signal)
      .then((d) => (setData(d), setError(undefined), setErrorCode(undefined)))
      .catch((e: unknown) => {
        if (!ctl.signal.aborted) (setError(errorText(e)), setErrorCode(e instanceof ApiError ? e.code : undefined));
      })
      .finally(() => {
        if (!ctl.signal.aborted) setLoading(false);
      });
    return () => ctl.abort();
  }, [load === null, ...deps, tick]);
  // The period counts from the first read, not from the mount (a page may wait for its repository first).
  useEffect(() => {
    if (!refreshMs || load === null) return;
    const id = setInterval(reload, refreshMs);
    return () => clearInterval(id);
  }, [refreshMs, reload, load === null]);
  return { data, error, errorCode, loading, reload };
}

type GetPath = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];
/** The path and query parameters a GET route takes, as its schema declares them. */
export type GetParams<P extends GetPath> = paths[P]['get'] extends { parameters: infer A } ? Pick<A, 'path' & keyof A> & Pick<A, 'query' & keyof A> : never;

/** `useApi` for a GET route of the schema: the answer typed from its 200 response, read again when a parameter changes. */
export function useGet<P extends GetPath>(path: P | null, params: GetParams<P>, refreshMs?: number): Loaded<ApiResponse<P, 'get'>> {
  // The route is checked by the signature; openapi-fetch's overloads cannot be named for a generic path.
  const get = sb.GET as unknown as (path: string, init: { params: unknown; signal: AbortSignal }) => Promise<{ data?: ApiResponse<P, 'get'>; error?: unknown; response: Response }>;
  return useApi(path === null ? null : (signal) => unwrap(get(path, { params, signal })), [path, JSON.stringify(params)], refreshMs);
}
