import { ApiError, apiErrorOfResponse } from './api-error.js';
import { fillPath, type PathParams, type QueryParams } from './api-path.js';
import { isEventStream, readEvents, type ServerEvent } from './events.js';
import type { Transport } from './transport.js';
import { sendWithProgress } from './upload.js';

/** A request to a route known only at run time (an adapter built from route declarations). */
export interface RequestOptions {
  /** Values of the path's variables (`{id}` or `:id`), URL-encoded into it. */
  params?: PathParams;
  query?: QueryParams;
  /** A JSON body. */
  json?: unknown;
  /** A multipart body. */
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Non-2xx statuses whose body is an answer, not an error (GET /health/ready's 503). */
  acceptStatus?: readonly number[];
  /** With `form`: the fraction of the upload sent, 0 to 1. */
  onProgress?: (fraction: number) => void;
}

export type DownloadOptions = Pick<RequestOptions, 'params' | 'query' | 'headers' | 'signal'>;

export interface ApiRequests {
  /** The answer as it came: a 2xx (or a status of `acceptStatus`); any other status throws ApiError. */
  raw(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** The answer's body: parsed JSON, else text; undefined when empty (204). */
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** A binary answer (a job's PDF) as a Blob; the key travels in the header, never in a URL. */
  download(path: string, options?: DownloadOptions): Promise<Blob>;
  /** The server-sent events of a route (GET /admin/logs/tail, POST /api/rag with stream: true). */
  events(method: string, path: string, options?: RequestOptions): AsyncGenerator<ServerEvent, void, undefined>;
}

export function createRequests(transport: Transport): ApiRequests {
  async function raw(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const verb = method.toUpperCase();
    const url = transport.url(fillPath(path, options.params), options.query);
    const headers = transport.headers(options.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    let response: Response;
    if (options.form && options.onProgress) {
      response = await sendWithProgress(transport, { method: verb, url, form: options.form, headers, onProgress: options.onProgress, ...(options.signal ? { signal: options.signal } : {}) });
    } else {
      let body: BodyInit | undefined;
      if (options.form) body = options.form;
      else if (options.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(options.json);
      }
      response = await transport.send(new Request(url, { method: verb, headers, ...(body !== undefined ? { body } : {}), ...(options.signal ? { signal: options.signal } : {}) }));
    }
    if (!response.ok && !options.acceptStatus?.includes(response.status)) throw await apiErrorOfResponse(response);
    return response;
  }

  return {
    raw,
    async request<T>(method: string, path: string, options?: RequestOptions) {
      const text = await (await raw(method, path, options)).text();
      if (!text) return undefined as T;
      try {
        return JSON.parse(text) as T;
      } catch {
        return text as T;
      }
    },
    async download(path, options = {}) {
      return (await raw('GET', path, { ...options, headers: { accept: '*/*', ...options.headers } })).blob();
    },
    async *events(method, path, options = {}) {
      const response = await raw(method, path, { ...options, headers: { accept: 'text/event-stream', ...options.headers } });
      if (!isEventStream(response)) {
        await response.body?.cancel();
        throw new ApiError(response.status, `the answer is ${response.headers.get('content-type') || 'without a type'}, not text/event-stream`, 'not_event_stream');
      }
      yield* readEvents(response);
    },
  };
}
