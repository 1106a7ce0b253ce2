// The console's only way to the gateway: the public HTTP API, same routes, scopes and errors as
// any client. The operator's key lives in sessionStorage and travels only in the X-API-Key header.

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

/** A refused request: the API's own `detail` and `code`, and the HTTP status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
  ) {
    super(detail);
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A JSON body, or FormData for uploads. */
  body?: unknown;
  query?: Record<string, string | number | undefined | null>;
  signal?: AbortSignal;
  /** Non-2xx statuses whose body is an answer, not an error (GET /health/ready's 503). */
  acceptStatus?: number[];
}

export function withQuery(path: string, query?: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s ? `${path}?${s}` : path;
}

function headers(extra: Record<string, string> = {}): Headers {
  const h = new Headers(extra);
  const key = apiKey();
  if (key) h.set('X-API-Key', key);
  return h;
}

async function failure(res: Response): Promise<ApiError> {
  let detail = `${res.status} ${res.statusText}`;
  let code = 'http_error';
  try {
    const body = (await res.json()) as { detail?: unknown; code?: unknown };
    if (typeof body.detail === 'string') detail = body.detail;
    if (typeof body.code === 'string') code = body.code;
  } catch {
    // Not JSON: the status line is all there is.
  }
  return new ApiError(res.status, detail, code);
}

/** Sends a request and returns the raw response once it succeeded (2xx), else throws ApiError. */
export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const init: RequestInit = { method: options.method ?? 'GET', headers: headers({ Accept: 'application/json' }), credentials: 'same-origin' };
  if (options.signal) init.signal = options.signal;
  if (options.body instanceof FormData) init.body = options.body;
  else if (options.body !== undefined) {
    (init.headers as Headers).set('Content-Type', 'application/json');
    init.body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), init);
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'The gateway did not answer (network error).', 'network_error');
  }
  if (!res.ok && !options.acceptStatus?.includes(res.status)) throw await failure(res);
  return res;
}

/** A JSON request: the parsed body of a 2xx answer (undefined for 204). */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const res = await request(path, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Downloads a response as a file without putting the key in a URL: fetch, then a blob link. */
export async function download(path: string, filename: string): Promise<void> {
  const res = await request(path);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.status ? `${err.detail} (${err.status} ${err.code})` : err.detail;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Reads a server-sent event stream with fetch (EventSource cannot send the X-API-Key header),
 * calling `onEvent` for each event with data, until `signal` aborts or the stream ends.
 */
export async function readEvents(path: string, onEvent: (event: string, data: string) => void, signal: AbortSignal): Promise<void> {
  const res = await request(path, { signal });
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return;
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length) onEvent(event, data.join('\n'));
    }
  }
}

/**
 * POSTs a form with upload progress (fetch has none): `onProgress` gets the fraction sent,
 * 0 to 1. Answers like `api`: the parsed JSON of a 2xx, else an ApiError with the API's detail.
 */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.setRequestHeader('Accept', 'application/json');
    const key = apiKey();
    if (key) xhr.setRequestHeader('X-API-Key', key);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'The gateway did not answer (network error).', 'network_error'));
    xhr.onload = () => {
      let body: { detail?: unknown; code?: unknown } | undefined;
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body as T);
      reject(new ApiError(xhr.status, typeof body?.detail === 'string' ? body.detail : `${xhr.status} ${xhr.statusText}`, typeof body?.code === 'string' ? body.code : 'http_error'));
    };
    xhr.send(form);
  });
}
