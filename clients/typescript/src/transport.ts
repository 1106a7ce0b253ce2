import { isAbort, networkError } from './api-error.js';
import { queryString, type QueryParams } from './api-path.js';

export interface SwitchboardClientOptions {
  /** The gateway, e.g. http://127.0.0.1:8080; '' in a browser page the gateway serves (same origin). */
  baseUrl: string;
  /** Sent as X-API-Key: a key, or a function read on every request (a key kept in sessionStorage). */
  apiKey?: string | (() => string | null | undefined);
  /** Another fetch (a proxy agent, a recording test wrapper). */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Where every request of the client goes out: the base URL, the default headers and the key, and fetch. */
export interface Transport {
  readonly baseUrl: string;
  /** True when the caller gave its own fetch (then uploads stream through it, never XMLHttpRequest). */
  readonly ownFetch: boolean;
  /** The URL of a filled-in API path with its query. */
  url(path: string, query?: QueryParams): string;
  /** The default headers and X-API-Key (read now), under `extra`. */
  headers(extra?: HeadersInit): Headers;
  /** fetch with the default headers added; no answer is ApiError `network_error`, an abort passes through. */
  send(request: Request): Promise<Response>;
}

export function createTransport(options: SwitchboardClientOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const headers = (extra?: HeadersInit): Headers => {
    const merged = new Headers(extra);
    for (const [name, value] of Object.entries(options.headers ?? {})) if (!merged.has(name)) merged.set(name, value);
    const key = typeof options.apiKey === 'function' ? options.apiKey() : options.apiKey;
    if (key && !merged.has('x-api-key')) merged.set('x-api-key', key);
    return merged;
  };
  return {
    baseUrl,
    ownFetch: options.fetch !== undefined,
    url: (path, query) => `${baseUrl}${path}${queryString(query)}`,
    headers,
    async send(request) {
      headers().forEach((value, name) => {
        if (!request.headers.has(name)) request.headers.set(name, value);
      });
      try {
        return await fetchImpl(request);
      } catch (error) {
        if (isAbort(error)) throw error;
        throw networkError(request.url, error);
      }
    },
  };
}
