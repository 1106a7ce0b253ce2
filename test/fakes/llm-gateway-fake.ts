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

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface LlmGatewayFake {
  url: string;
  requests: SeenRequest[];
  /** Adds or replaces the handler of METHOD path. */
  route(method: string, path: string, handler: FakeHandler): void;
  /** The next `n` requests get `status` with an OpenAI-style error body (then normal service). */
  failNext(n: number, status?: number): void;
  /** Queues replies of POST /v1/chat/completions, used in order; afterwards `defaultChat` answers. */
  replyWith(...replies: ChatReply[]): void;
  /** The reply when nothing is queued (initially: "See [1]." with usage). */
  defaultChat: ChatReply;
  /** Recorded chat completion requests. */
  chats(): SeenRequest[];
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
      const path = (req.url ?? '/').split('?')[0]!;
      const seen: SeenRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
      requests.push(seen);
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
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
