/** What the gateway answered an MCP tool's request: its status and JSON body (or text). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** A failed API call as the tool reports it: the API's `detail` and `code`, never a stack. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
  ) {
    super(detail);
  }
}

/**
 * The gateway's own HTTP API as the MCP tools call it, with the MCP caller's key forwarded: every
 * tool is a request to a documented route, so it needs that route's scope and meets its limits.
 */
export class GatewayApi {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
  ) {}

  async call(method: string, path: string, options: { query?: Record<string, unknown>; json?: unknown; form?: FormData; headers?: Record<string, string> } = {}): Promise<unknown> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...(options.headers ?? {}) };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    let body: BodyInit | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) body = options.form;
    let response: Response;
    try {
      response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    } catch (error) {
      throw new ApiCallError(502, `the gateway at ${url.origin} could not be reached: ${(error as Error).message}`, 'gateway_unreachable');
    }
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // a non-JSON answer (a proxy's page) is reported as its text
    }
    if (!response.ok) {
      const error = (parsed ?? {}) as { detail?: unknown; code?: unknown };
      const detail = typeof error.detail === 'string' ? error.detail : `HTTP ${response.status}`;
      throw new ApiCallError(response.status, detail, typeof error.code === 'string' ? error.code : `http_${response.status}`);
    }
    return parsed;
  }
}
