import { Readable } from 'node:stream';
import type { EgressHttpClient } from 'switchboard/sdk';

/** The parts of the AWS SDK's HttpRequest this handler reads (the SDK's own type stays out of start-up). */
interface SdkRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | Array<string> | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** Headers fetch sets itself (or refuses): none of them is signed. */
const DROPPED_HEADERS = new Set(['host', 'content-length', 'expect', 'connection', 'transfer-encoding']);

/** Whole downloads stream through one request; the egress client's 30 s default would cut them. */
const REQUEST_TIMEOUT_MS = 10 * 60_000;

function requestUrl(request: SdkRequest): URL {
  const url = new URL(`${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value === null) url.searchParams.append(name, '');
    else for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v);
  }
  // S3 signs the query as RFC 3986 encodes it; URLSearchParams writes a space as "+".
  url.search = url.search.replace(/\+/g, '%20');
  return url;
}

/** Upload parts arrive as bytes; a stray stream body is read whole (at most one part). */
async function requestBody(body: unknown): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof Readable) {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }
  throw new TypeError(`unsupported S3 request body: ${Object.prototype.toString.call(body)}`);
}

/** The SDK may hand its own AbortSignal-like object; fetch takes only a real one. */
function nativeSignal(signal: { aborted: boolean; addEventListener?: unknown; onabort?: unknown }): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else (signal as { onabort: (() => void) | null }).onabort = () => controller.abort();
  return controller.signal;
}

/**
 * The AWS SDK's request handler on the plugin's egress-checked HTTP client: every S3 request
 * goes to a host of the manifest's egress list or is refused, like any plugin's traffic.
 */
export function egressRequestHandler(http: EgressHttpClient) {
  return {
    metadata: { handlerProtocol: 'http/1.1' },
    async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}) {
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
      const res = await http.fetch(requestUrl(request), {
        method: request.method,
        headers,
        body: await requestBody(request.body),
        timeoutMs: REQUEST_TIMEOUT_MS,
        maxRedirects: 0,
        ...(options.abortSignal ? { signal: nativeSignal(options.abortSignal) } : {}),
      });
      const responseHeaders: Record<string, string> = {};
      res.headers.forEach((value, name) => (responseHeaders[name] = value));
      const body = res.body ? Readable.fromWeb(res.body as import('node:stream/web').ReadableStream) : Readable.from([]);
      return { response: { statusCode: res.status, reason: res.statusText, headers: responseHeaders, body } };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}
