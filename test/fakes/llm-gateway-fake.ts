/**
 * A loopback OpenAI-compatible LLM gateway (the real /v1 wire format), for tests of dense
 * retrieval and, later, answers. Small on purpose: routes are a table others extend with
 * `fake.route('POST', '/v1/chat/completions', handler)`; every request is recorded.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

export interface LlmGatewayFake {
  url: string;
  requests: SeenRequest[];
  /** Adds or replaces the handler of METHOD path. */
  route(method: string, path: string, handler: FakeHandler): void;
  /** The next `n` requests get `status` with an OpenAI-style error body (then normal service). */
  failNext(n: number, status?: number): void;
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

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readJson(req);
      const path = (req.url ?? '/').split('?')[0]!;
      const seen: SeenRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
      requests.push(seen);
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
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
