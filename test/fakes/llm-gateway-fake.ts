/**
 * A loopback OpenAI-compatible LLM gateway (the real /v1 wire format), for tests of dense
 * retrieval and answers: `/v1/embeddings` and `/v1/chat/completions` (plain and `stream: true`
 * server-sent events) with scripted replies, failures, delays and hangs. Routes are a table
 * others extend with `fake.route(...)`; every request is recorded (headers and body) and marked
 * `aborted` when its client went away first.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** Set when the client went away before the answer was complete (a cancelled call). */
  aborted?: boolean;
  /** The query string (without "?"). */
  query?: string;
}

/**
 * One scripted chat completion: its content (sent whole, or as `tokens` in a stream), an error
 * status instead, a delay before answering, or `hang` (never answers; a stream that hangs after
 * `tokens`).
 */
export interface ChatScript {
  text?: string;
  tokens?: string[];
  status?: number;
  delayMs?: number;
  hang?: boolean;
  usage?: { prompt_tokens: number; completion_tokens: number };
}

export type ChatReply = string | ChatScript | ((req: SeenRequest) => string | ChatScript);

/**
 * The gateway's native spend ledger, LiteLLM's row shape: a row per served /v1 request that
 * carried `x-gateway-session-id`, with knobs for what real ledgers do: rows that land late,
 * rows that never land, gateway-side retries, models without a price, metadata as a string.
 */
export interface FakeSpendLedger {
  /** Every row written (landed or not). */
  rows: Array<Record<string, any>>;
  /** Rows are written this long after the request was served (default 0). */
  landDelayMs: number;
  /** While held, rows are recorded but not served; release() lands them. */
  hold(): void;
  release(): void;
  /** The next `n` rows are never written (a lost ledger write). */
  dropNext(n: number): void;
  /** The next served request shows `n` gateway-side retries: n extra rows of attempts the client never saw. */
  retryNext(n: number): void;
  /** USD per token by model; a model without a price gets spend 0 and no cost breakdown. Default: every model at 1e-6. */
  prices: Record<string, number>;
  defaultPrice: number | null;
  /** Metadata as a JSON string (as some LiteLLM versions answer). */
  metadataAsString: boolean;
  /** max_retries the gateway records when the request does not say (LiteLLM's default is 2 here). */
  defaultMaxRetries: number;
  /** GET /spend/logs/v2 requests seen (query strings). */
  reads: URLSearchParams[];
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface LlmGatewayFake {
  url: string;
  requests: SeenRequest[];
  /** Adds or replaces the handler of METHOD path. */
  route(method: string, path: string, handler: FakeHandler): void;
  /** The handler of METHOD path now (to wrap it, then put it back). */
  handler(method: string, path: string): FakeHandler | undefined;
  /** The next `n` requests get `status` with an OpenAI-style error body (then normal service). */
  failNext(n: number, status?: number): void;
  /** Queues replies of POST /v1/chat/completions, used in order; afterwards `defaultChat` answers. */
  replyWith(...replies: ChatReply[]): void;
  /** The reply when nothing is queued (initially: "See [1]." with usage). */
  defaultChat: ChatReply;
  /** Recorded chat completion requests. */
  chats(): SeenRequest[];
  /** The spend ledger (GET /spend/logs/v2) of what this fake served. */
  ledger: FakeSpendLedger;
  close(): Promise<void>;
}

/**
 * Deterministic embeddings: a bag of hashed words, so texts sharing words are close (a real
 * model's property that tests need), `dimensions` wide (default 64).
 */
export function fakeEmbedding(text: string, dimensions = 64): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = createHash('sha1').update(word).digest();
    v[h.readUInt32BE(0) % dimensions]! += 1;
  }
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => x / norm);
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startLlmGatewayFake(options: { apiKey?: string; dimensions?: number } = {}): Promise<LlmGatewayFake> {
  const requests: SeenRequest[] = [];
  const routes = new Map<string, FakeHandler>();
  let failures: { left: number; status: number } = { left: 0, status: 500 };

  routes.set('POST /v1/embeddings', (req, res) => {
    const input: string[] = Array.isArray(req.body?.input) ? req.body.input : [req.body?.input];
    if (req.body?.encoding_format && req.body.encoding_format !== 'float') {
      // A real gateway would answer base64 here; the client must ask for floats.
      return sendJson(res, 400, { error: { message: 'this fake answers encoding_format float only', type: 'invalid_request_error' } });
    }
    sendJson(res, 200, {
      object: 'list',
      model: req.body?.model,
      data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(String(text), options.dimensions) })),
      usage: { prompt_tokens: input.join(' ').split(/\s+/).length, total_tokens: input.join(' ').split(/\s+/).length },
    });
  });

  const ledgerState = { held: false, drop: 0, retry: 0 };
  const ledger: FakeSpendLedger = {
    rows: [],
    landDelayMs: 0,
    hold() {
      ledgerState.held = true;
    },
    release() {
      ledgerState.held = false;
      for (const row of ledger.rows) row._landAt = Math.min(row._landAt, Date.now());
    },
    dropNext(n) {
      ledgerState.drop = n;
    },
    retryNext(n) {
      ledgerState.retry = n;
    },
    prices: {},
    defaultPrice: 1e-6,
    metadataAsString: false,
    defaultMaxRetries: 2,
    reads: [],
  };
  const writeLedgerRows = (seen: SeenRequest, status: number, responseText: string) => {
    const session = seen.headers['x-gateway-session-id'];
    if (typeof session !== 'string' || !['/v1/embeddings', '/v1/chat/completions'].includes(seen.path)) return;
    if (ledgerState.drop > 0) {
      ledgerState.drop--;
      return;
    }
    let spendMeta: Record<string, unknown> = {};
    try {
      spendMeta = JSON.parse(String(seen.headers['x-gateway-spend-logs-metadata'] ?? '{}'));
    } catch {}
    const usageMatch = [...responseText.matchAll(/"usage":(\{[^}]*\})/g)].pop();
    const usage = usageMatch ? JSON.parse(usageMatch[1]!) : {};
    const model = String(seen.body?.model ?? '');
    const price = Object.hasOwn(ledger.prices, model) ? ledger.prices[model]! : ledger.defaultPrice;
    const success = status < 400;
    const tokens = (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0);
    const extra = success ? ledgerState.retry : 0;
    ledgerState.retry = 0;
    const maxRetries = typeof seen.body?.max_retries === 'number' ? seen.body.max_retries : ledger.defaultMaxRetries;
    for (let attempt = 0; attempt <= extra; attempt++) {
      const last = attempt === extra;
      const spend = last && success && price !== null ? tokens * price : 0;
      const metadata = {
        spend_logs_metadata: spendMeta,
        litellm_call_id: `call-${ledger.rows.length}`,
        attempted_retries: attempt,
        max_retries: maxRetries,
        usage_object: last ? { prompt_tokens: usage.prompt_tokens ?? 0, completion_tokens: usage.completion_tokens ?? 0, total_tokens: tokens } : {},
        ...(price !== null || !success || !last ? { cost_breakdown: { input_cost: spend, output_cost: 0, total_cost: spend } } : {}),
      };
      const now = new Date();
      ledger.rows.push({
        request_id: `req-${ledger.rows.length}`,
        call_type: seen.path === '/v1/embeddings' ? 'aembedding' : 'acompletion',
        session_id: session,
        model,
        custom_llm_provider: 'openai',
        startTime: now.toISOString(),
        endTime: now.toISOString(),
        spend,
        status: last && success ? 'success' : 'failure',
        cache_hit: 'False',
        metadata: ledger.metadataAsString ? JSON.stringify(metadata) : metadata,
        _landAt: ledgerState.held ? Number.POSITIVE_INFINITY : Date.now() + ledger.landDelayMs,
      });
    }
  };
  routes.set('GET /spend/logs/v2', (req, res) => {
    const q = new URLSearchParams(req.query ?? '');
    ledger.reads.push(q);
    const page = Math.max(1, Number(q.get('page') ?? 1));
    const size = Math.max(1, Number(q.get('page_size') ?? 50));
    const now = Date.now();
    const landed = ledger.rows.filter((r) => r._landAt <= now && (!q.get('session_id') || r.session_id === q.get('session_id')));
    const data = landed.slice((page - 1) * size, page * size).map(({ _landAt, ...row }) => row);
    sendJson(res, 200, { data, total: landed.length, page, page_size: size, total_pages: Math.ceil(landed.length / size) });
  });

  const queued: ChatReply[] = [];
  const state: { defaultChat: ChatReply } = { defaultChat: 'See [1].' };
  routes.set('POST /v1/chat/completions', async (req, res) => {
    const reply = queued.length ? queued.shift()! : state.defaultChat;
    const resolved = typeof reply === 'function' ? reply(req) : reply;
    const script: ChatScript = typeof resolved === 'string' ? { text: resolved } : resolved;
    if (script.delayMs) await new Promise((r) => setTimeout(r, script.delayMs));
    if (script.hang && !req.body?.stream) return; // never answers; the client's deadline must cut it
    if (script.status) return sendJson(res, script.status, { error: { message: `scripted failure ${script.status}`, type: 'server_error' } });
    const text = script.text ?? (script.tokens ?? []).join('');
    const usage = {
      prompt_tokens: script.usage?.prompt_tokens ?? wordCount(JSON.stringify(req.body?.messages ?? [])),
      completion_tokens: script.usage?.completion_tokens ?? wordCount(text),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
    const id = `chatcmpl-${createHash('sha1').update(String(Math.random())).digest('hex').slice(0, 12)}`;
    const created = Math.floor(Date.now() / 1000);
    const model = req.body?.model;
    if (!req.body?.stream) {
      return sendJson(res, 200, {
        id, object: 'chat.completion', created, model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }],
        usage,
      });
    }
    // Server-sent events as OpenAI sends them: content deltas, a finishing chunk, usage when asked, [DONE].
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] });
    send(chunk({ role: 'assistant', content: '' }, null));
    for (const token of script.tokens ?? (text ? text.match(/\S+\s*|\s+/g) ?? [text] : [])) send(chunk({ content: token }, null));
    if (script.hang) return; // tokens sent, then silence
    send(chunk({}, 'stop'));
    if (req.body?.stream_options?.include_usage) send({ id, object: 'chat.completion.chunk', created, model, choices: [], usage });
    res.end('data: [DONE]\n\n');
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      const [path, query] = (req.url ?? '/').split('?') as [string, string | undefined];
      const seen: SeenRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, ...(query ? { query } : {}) };
      requests.push(seen);
      // What was answered, so the ledger row carries the usage the client saw.
      let answered = '';
      const write = res.write.bind(res);
      const end = res.end.bind(res);
      res.write = ((chunk: any, ...rest: any[]) => {
        if (chunk) answered += String(chunk);
        return write(chunk, ...rest);
      }) as typeof res.write;
      res.end = ((chunk?: any, ...rest: any[]) => {
        if (chunk && typeof chunk !== 'function') answered += String(chunk);
        return end(chunk, ...rest);
      }) as typeof res.end;
      res.on('finish', () => writeLedgerRows(seen, res.statusCode, answered));
      res.on('close', () => {
        if (!res.writableFinished) seen.aborted = true;
      });
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return sendJson(res, 401, { error: { message: 'invalid api key', type: 'authentication_error' } });
      }
      if (failures.left > 0) {
        failures.left--;
        return sendJson(res, failures.status, { error: { message: `fake failure ${failures.status}`, type: 'server_error' } });
      }
      const handler = routes.get(`${seen.method} ${path}`);
      if (!handler) return sendJson(res, 404, { error: { message: `no route ${seen.method} ${path}`, type: 'not_found' } });
      await handler(seen, res);
    })().catch((err) => sendJson(res, 500, { error: { message: String(err), type: 'server_error' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route(method, path, handler) {
      routes.set(`${method.toUpperCase()} ${path}`, handler);
    },
    handler(method, path) {
      return routes.get(`${method.toUpperCase()} ${path}`);
    },
    failNext(n, status = 500) {
      failures = { left: n, status };
    },
    replyWith(...replies) {
      queued.push(...replies);
    },
    get defaultChat() {
      return state.defaultChat;
    },
    set defaultChat(reply: ChatReply) {
      state.defaultChat = reply;
    },
    chats() {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    ledger,
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
