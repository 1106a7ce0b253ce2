/**
 * A failed call: the HTTP status and the API's `{detail, code}`. A non-JSON answer (a proxy's
 * page) has code `http_<status>` and its text as detail; no answer at all (refused, reset, DNS)
 * is status 0 with code `network_error`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(status ? `${status} ${code}: ${detail}` : `${code}: ${detail}`, options);
    this.name = 'ApiError';
  }
}

/** The ApiError of a non-2xx answer from its body: parsed JSON, text, or nothing. */
export function apiErrorOf(status: number, body: unknown, statusText = ''): ApiError {
  const fallbackCode = `http_${status}`;
  if (body !== null && typeof body === 'object') {
    const { detail, code } = body as { detail?: unknown; code?: unknown };
    const text = detail === undefined ? JSON.stringify(body) : typeof detail === 'string' ? detail : JSON.stringify(detail);
    return new ApiError(status, text, typeof code === 'string' ? code : fallbackCode);
  }
  const text = typeof body === 'string' ? body.trim() : '';
  return new ApiError(status, text || statusText || `HTTP ${status}`, fallbackCode);
}

/** Reads a non-2xx answer's body into its ApiError. */
export async function apiErrorOfResponse(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the detail
  }
  return apiErrorOf(response.status, body, response.statusText);
}

/** No answer came: the gateway is down, the name does not resolve, the connection was reset. */
export function networkError(url: string, cause: unknown): ApiError {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const reason = typeof inner?.code === 'string' ? inner.code : typeof inner?.message === 'string' ? inner.message : String((cause as Error | undefined)?.message ?? cause);
  return new ApiError(0, `the gateway at ${originOf(url)} did not answer (${reason})`, 'network_error', { cause });
}

/** An abort (AbortController, AbortSignal.timeout) is the caller's own doing: it passes through as is. */
export function isAbort(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

function originOf(url: string): string {
  try {
    return new URL(url, (globalThis as { location?: { href: string } }).location?.href).origin;
  } catch {
    return url;
  }
}
