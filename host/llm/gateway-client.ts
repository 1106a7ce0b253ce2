import type OpenAI from 'openai';

/** Who a call is made for; the LLM gateway attributes spend by these headers. */
export interface RunIdentity {
  /** Sent as `x-gateway-session-id`. */
  sessionId?: string;
  /** Sent as `x-gateway-spend-logs-metadata` (JSON). */
  spendMetadata?: Record<string, unknown>;
}

export interface LlmGatewayOptions {
  /** LLM_GATEWAY_URL; `/v1` is appended unless the URL already ends with it. */
  baseUrl: string;
  /** LLM_GATEWAY_API_KEY. */
  apiKey?: string;
  timeoutMs?: number;
  /** Attempts per call, for connection errors, 408, 429 and 5xx (our own bounded retry). */
  attempts?: number;
  /** First backoff; it doubles each retry. */
  backoffMs?: number;
}

export class LlmGatewayError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'LlmGatewayError';
  }
}

/**
 * The one client of the OpenAI-compatible LLM gateway, shared by embeddings, answers and run
 * accounting: the `openai` package with its own retries off (maxRetries 0) and a bounded retry
 * here, so every caller gets the same rules and per-call run identity headers.
 */
export class LlmGatewayClient {
  private client?: Promise<OpenAI>;
  private readonly attempts: number;
  private readonly backoffMs: number;

  constructor(private readonly options: LlmGatewayOptions) {
    this.attempts = Math.max(1, options.attempts ?? 3);
    this.backoffMs = options.backoffMs ?? 250;
  }

  /** The `openai` client, loaded on first use so a gateway without a model never imports it. */
  openai(): Promise<OpenAI> {
    this.client ??= import('openai').then(({ default: OpenAIClient }) => {
      const base = this.options.baseUrl.replace(/\/+$/, '');
      return new OpenAIClient({
        baseURL: /\/v1$/.test(base) ? base : `${base}/v1`,
        // The package insists on a key; a gateway without auth ignores the placeholder.
        apiKey: this.options.apiKey || 'no-key',
        maxRetries: 0,
        timeout: this.options.timeoutMs ?? 30_000,
      });
    });
    return this.client;
  }

  /** Headers of one call: the run identity, when given. */
  static headers(identity: RunIdentity = {}): Record<string, string> {
    const headers: Record<string, string> = {};
    if (identity.sessionId) headers['x-gateway-session-id'] = identity.sessionId;
    if (identity.spendMetadata) headers['x-gateway-spend-logs-metadata'] = JSON.stringify(identity.spendMetadata);
    return headers;
  }

  /** Runs `call` with the bounded retry; the error of the last attempt is thrown as LlmGatewayError. */
  async withRetry<T>(what: string, call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let last: unknown;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      try {
        return await call();
      } catch (err) {
        last = err;
        if (signal?.aborted || !retryable(err) || attempt === this.attempts) break;
        await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 1)));
      }
    }
    const status = (last as { status?: number })?.status;
    throw new LlmGatewayError(`${what} failed${status ? ` (HTTP ${status})` : ''}: ${(last as Error)?.message ?? String(last)}`, status);
  }

  /** Embeddings of `inputs`, in order. */
  async embed(model: string, inputs: string[], options: { dimensions?: number; identity?: RunIdentity; signal?: AbortSignal } = {}): Promise<number[][]> {
    if (!inputs.length) return [];
    const openai = await this.openai();
    const response = await this.withRetry(
      'embedding request',
      () =>
        openai.embeddings.create(
          // Without encoding_format 'float' the client asks for base64 and float answers come back empty.
          { model, input: inputs, encoding_format: 'float', ...(options.dimensions ? { dimensions: options.dimensions } : {}) },
          { headers: LlmGatewayClient.headers(options.identity), ...(options.signal ? { signal: options.signal } : {}) },
        ),
      options.signal,
    );
    const out: number[][] = new Array(inputs.length);
    for (const item of response.data) out[item.index] = item.embedding;
    if (out.some((v) => !Array.isArray(v) || !v.length)) throw new LlmGatewayError('embedding response is missing vectors');
    return out;
  }
}

function retryable(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  if (status === undefined) return true; // connection refused, reset, timeout
  return status === 408 || status === 429 || status >= 500;
}
