import type OpenAI from 'openai';
import { OutboundAddressError, OutboundGuard } from '../../../core/kernel/egress.js';
import type { LlmGatewayEndpoint } from './gateway-endpoint.js';

/** Who a call is made for; the LLM gateway attributes spend by these headers. */
export interface RunIdentity {
  /** Sent as `x-gateway-session-id`. */
  sessionId?: string;
  /** Sent as `x-gateway-spend-logs-metadata` (compact JSON, keys sorted). */
  spendMetadata?: Record<string, unknown>;
  /** The run's durable request census: each attempt is admitted before it is dispatched. */
  census?: CensusSink;
}

/** How a dispatched attempt ended, as far as this side knows. */
export type AttemptOutcome =
  /** The gateway answered 2xx. */
  | { state: 'completed'; inputTokens?: number; outputTokens?: number }
  /** The gateway answered an error status. */
  | { state: 'failed'; status: number }
  /** No answer (reset, timeout, cancelled): the gateway may or may not have served it. */
  | { state: 'uncertain' };

/** Where a run writes its census (run accounting, host/platform/llm/accounting); admit resolves once the row is durable. */
export interface CensusSink {
  admit(lane: string, model: string): Promise<string>;
  settle(requestId: string, outcome: AttemptOutcome): Promise<void>;
}

/**
 * The run identity of the workbench spec (mechanism rules 1-2): the run id is the gateway
 * session and, with the corpus and the lane, the spend-log metadata.
 */
export function runIdentity(runId: string, corpusId: string, lane: string, census?: CensusSink): RunIdentity {
  return { sessionId: runId, spendMetadata: { corpus_id: corpusId, lane, run_id: runId }, ...(census ? { census } : {}) };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  maxTokens?: number;
  identity?: RunIdentity;
  /** The caller's cancellation (a client that went away). */
  signal?: AbortSignal;
  /** Deadline of the whole call, retries included (GEN_TIMEOUT). */
  timeoutMs?: number;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatResult {
  text: string;
  usage?: ChatUsage;
  /** Attempts made (1 unless retried). */
  attempts: number;
  ms: number;
}

export interface LlmGatewayOptions extends Partial<Omit<LlmGatewayEndpoint, 'baseUrl'>> {
  /** LLM_GATEWAY_URL; `/v1` is appended unless the URL already ends with it. */
  baseUrl: string;
  /** The outbound guard a run-time URL goes through (OUTBOUND_ALLOW_HOSTS); a strict one without it. */
  guard?: OutboundGuard;
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
    if (this.options.withheld) return Promise.reject(new LlmGatewayError(this.options.withheld));
    this.client ??= import('openai').then(({ default: OpenAIClient }) => {
      const base = this.options.baseUrl.replace(/\/+$/, '');
      const guard = this.options.runtimeUrl ? (this.options.guard ?? new OutboundGuard()) : undefined;
      return new OpenAIClient({
        // A URL written at run time reaches only public addresses (the guard pins the checked one).
        ...(guard ? { fetch: (url: string | URL | Request, init?: RequestInit) => guard.fetch(new URL(url instanceof Request ? url.url : url), init ?? {}) } : {}),
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
    if (identity.spendMetadata) headers['x-gateway-spend-logs-metadata'] = sortedJson(identity.spendMetadata);
    return headers;
  }

  /** One non-streamed chat completion. */
  chat(request: ChatRequest): Promise<ChatResult> {
    return this.chatCall(
      request,
      'chat completion',
      (openai, options) => openai.chat.completions.create(chatBody(request), options),
      (r) => r.usage,
      (response) => ({ text: response.choices[0]?.message?.content ?? '', usage: response.usage ? pickUsage(response.usage) : undefined }),
    );
  }

  /**
   * A streamed chat completion (`stream: true`): `onToken` gets each content delta as it arrives.
   * Only opening the stream is retried; once a token was delivered a failure is final.
   */
  chatStream(request: ChatRequest, onToken: (text: string) => void): Promise<ChatResult> {
    return this.chatCall(
      request,
      'chat completion stream',
      (openai, options) => openai.chat.completions.create({ ...chatBody(request), stream: true, stream_options: { include_usage: true } }, options),
      // The census sees the stream opened (a 2xx); its usage arrives with the last chunk.
      () => undefined,
      async (stream) => {
        let text = '';
        let usage: ChatUsage | undefined;
        for await (const chunk of stream) {
          const delta = chunk.choices?.[0]?.delta?.content;
          if (delta) {
            text += delta;
            onToken(delta);
          }
          if (chunk.usage) usage = pickUsage(chunk.usage);
        }
        return { text, usage };
      },
    );
  }

  /**
   * One chat call under the request's deadline: opening it is retried and admitted by the census,
   * `read` takes the text from what was opened, and a deadline that ran out is reported as a timeout.
   */
  private async chatCall<T>(
    request: ChatRequest,
    what: string,
    open: (openai: OpenAI, options: { headers: Record<string, string>; signal: AbortSignal | undefined }) => Promise<T>,
    usageOf: (opened: T) => { prompt_tokens?: number; completion_tokens?: number } | undefined | null,
    read: (opened: T) => { text: string; usage: ChatUsage | undefined } | Promise<{ text: string; usage: ChatUsage | undefined }>,
  ): Promise<ChatResult> {
    const started = performance.now();
    const { signal, dispose } = deadline(request.signal, request.timeoutMs);
    let attempts = 0;
    try {
      const openai = await this.openai();
      const headers = LlmGatewayClient.headers(request.identity);
      const opened = await this.withRetry(
        what,
        () => {
          attempts++;
          return accounted(request.identity, request.model, () => open(openai, { headers, signal }), usageOf);
        },
        signal,
      );
      const { text, usage } = await read(opened);
      return { text, ...(usage ? { usage } : {}), attempts, ms: performance.now() - started };
    } catch (err) {
      throw timeoutAware(err, request);
    } finally {
      dispose();
    }
  }

  /** Runs `call` with the bounded retry; the error of the last attempt is thrown as LlmGatewayError. */
  async withRetry<T>(what: string, call: () => Promise<T>, signal?: AbortSignal, attempts = this.attempts): Promise<T> {
    let last: unknown;
    const budget = Math.max(1, attempts);
    for (let attempt = 1; attempt <= budget; attempt++) {
      try {
        return await call();
      } catch (err) {
        last = err;
        // A refused address is the answer: nothing was sent, and retrying cannot change it.
        const refusal = outboundRefusalIn(err);
        if (refusal) throw new LlmGatewayError(`${what} failed: ${refusal.message}`);
        if (signal?.aborted || !retryable(err) || err instanceof CensusError || attempt === budget) break;
        await new Promise((r) => setTimeout(r, this.backoffMs * 2 ** (attempt - 1)));
      }
    }
    const status = (last as { status?: number })?.status;
    throw new LlmGatewayError(`${what} failed${status ? ` (HTTP ${status})` : ''}: ${(last as Error)?.message ?? String(last)}`, status);
  }

  /** Embeddings of `inputs`, in order. */
  async embed(model: string, inputs: string[], options: { dimensions?: number; identity?: RunIdentity; signal?: AbortSignal; attempts?: number } = {}): Promise<number[][]> {
    if (!inputs.length) return [];
    // Gateway retries off (num_retries, max_retries 0): our attempts are the whole budget, so
    // every native request the ledger shows is one the census admitted.
    const body = { model, input: inputs, encoding_format: 'float' as const, num_retries: 0, max_retries: 0, ...(options.dimensions ? { dimensions: options.dimensions } : {}) };
    const openai = await this.openai();
    const response = await this.withRetry(
      'embedding request',
      () =>
        accounted(
          options.identity,
          model,
          () =>
            openai.embeddings.create(
              // Without encoding_format 'float' the client asks for base64 and float answers come back empty.
              body as Parameters<OpenAI['embeddings']['create']>[0],
              { headers: LlmGatewayClient.headers(options.identity), ...(options.signal ? { signal: options.signal } : {}) },
            ),
          (r) => r.usage,
        ),
      options.signal,
      options.attempts,
    );
    const out: number[][] = new Array(inputs.length);
    for (const item of response.data) out[item.index] = item.embedding;
    if (out.some((v) => !Array.isArray(v) || !v.length)) throw new LlmGatewayError('embedding response is missing vectors');
    return out;
  }
}

function chatBody(request: ChatRequest): { model: string; messages: ChatMessage[]; temperature?: number; max_tokens?: number } {
  return {
    model: request.model,
    messages: request.messages,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
  };
}

function pickUsage(u: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number }): ChatUsage {
  return { prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0, total_tokens: u.total_tokens ?? 0 };
}

/** The caller's signal joined with a deadline, so a hanging gateway is cut whatever the retries do. */
function deadline(caller: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal | undefined; dispose: () => void } {
  if (!timeoutMs) return { signal: caller, dispose: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new LlmGatewayError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  const onAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onAbort);
    },
  };
}

function timeoutAware(err: unknown, request: ChatRequest): unknown {
  if (request.signal?.aborted) return new LlmGatewayError('cancelled by the caller');
  if (err instanceof LlmGatewayError) return err;
  return new LlmGatewayError((err as Error)?.message ?? String(err), (err as { status?: number })?.status);
}

/** Compact JSON with object keys sorted at every level: the gateway's ledger compares it as text. */
export function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sort) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])])) : v;
  return JSON.stringify(sort(value));
}

/** The census could not admit a request: nothing was dispatched, and nothing may be. */
export class CensusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CensusError';
  }
}

/**
 * One native attempt under the run's census: admitted (durably) before dispatch, settled after.
 * Without a census the call simply runs.
 */
async function accounted<T>(identity: RunIdentity | undefined, model: string, call: () => Promise<T>, usageOf: (r: T) => { prompt_tokens?: number; completion_tokens?: number } | undefined | null): Promise<T> {
  const census = identity?.census;
  if (!census) return call();
  const lane = String(identity.spendMetadata?.lane ?? 'unknown');
  let requestId: string;
  try {
    requestId = await census.admit(lane, model);
  } catch (err) {
    throw new CensusError(`the request census could not admit a ${lane} request: ${(err as Error).message}`);
  }
  let result: T;
  try {
    result = await call();
  } catch (err) {
    const status = (err as { status?: number })?.status;
    await census.settle(requestId, typeof status === 'number' ? { state: 'failed', status } : { state: 'uncertain' }).catch(() => {});
    throw err;
  }
  const usage = usageOf(result);
  await census.settle(requestId, { state: 'completed', ...(usage?.prompt_tokens !== undefined ? { inputTokens: usage.prompt_tokens } : {}), ...(usage?.completion_tokens !== undefined ? { outputTokens: usage.completion_tokens } : {}) }).catch(() => {});
  return result;
}

/** The guard's refusal, wherever the openai client wrapped it ("Connection error." with a cause chain). */
function outboundRefusalIn(err: unknown): OutboundAddressError | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current; depth++) {
    if (current instanceof OutboundAddressError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function retryable(err: unknown): boolean {
  const status = (err as { status?: number })?.status;
  if (status === undefined) return true; // connection refused, reset, timeout
  return status === 408 || status === 429 || status >= 500;
}
