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

  async call(method: string, path: string, options: CallOptions = {}): Promise<unknown> {
    const response = await this.send(method, path, options);
    return parseAnswer(response, await response.text());
  }

  /**
   * A POST whose answer is server-sent events (POST /api/rag with stream=true): each event is
   * given to `onEvent`; the `final` event's data is the result and an `error` event throws.
   */
  async events(path: string, json: unknown, onEvent: (event: string, data: unknown) => void | Promise<void>, signal?: AbortSignal): Promise<unknown> {
    const response = await this.send('POST', path, { json, headers: { accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return parseAnswer(response, await response.text());
    let buffer = '';
    let final: unknown;
    const decoder = new TextDecoder();
    const handle = async (block: string) => {
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length === 0) return;
      const parsed = JSON.parse(data.join('\n')) as unknown;
      if (event === 'final') final = parsed;
      else if (event === 'error') {
        const error = parsed as { detail?: string; code?: string };
        throw new ApiCallError(500, error.detail ?? 'the answer failed', error.code ?? 'internal_error');
      }
      await onEvent(event, parsed);
    };
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n/g, '\n');
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        await handle(block);
      }
    }
    if (buffer.trim()) await handle(buffer);
    if (final === undefined) throw new ApiCallError(502, 'the answer stream ended without a final event', 'stream_incomplete');
    return final;
  }

  private async send(method: string, path: string, options: CallOptions): Promise<Response> {
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
      response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      throw new ApiCallError(502, `the gateway at ${url.origin} could not be reached: ${(error as Error).message}`, 'gateway_unreachable');
    }
    return response;
  }
}

interface CallOptions {
  query?: Record<string, unknown>;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The JSON (or text) of an answer; a failed one throws its `detail` and `code`. */
function parseAnswer(response: Response, text: string): unknown {
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
