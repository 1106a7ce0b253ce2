import type { RequestListener } from 'node:http';
import type { Request, Response } from 'express';
import { actorOf, principalOf } from '../platform/auth/access-guard.js';
import { isLoopback } from '../platform/auth/loopback.js';
import { hostAllowed } from '../platform/auth/request-site.js';
import { httpError, invalid } from '../platform/http/error-catalogue.js';
import { openApiDocument } from '../platform/http/openapi.js';
import { readRawBody } from '../platform/http/raw-body.js';
import { JsonDepthScan } from '../platform/http/json-depth.js';
import { answerAfterBody } from '../platform/http/refused-body.js';
import type { Platform } from '../platform/gateway/platform.js';
import { MCP_SETTINGS } from './mcp-settings.js';
import { inProcessFetch } from './in-process-fetch.js';

/**
 * The MCP SDK (with its JSON-schema validator), the client and the tools, loaded by the first POST
 * /mcp: most gateways never serve MCP, and the SDK is about 100 ms of start-up and a few MB resident.
 */
const loadModules = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./mcp-server.js'),
    import('./route-tools.js'),
    import('../../clients/typescript/src/index.js'),
  ]);
let mcpModules: ReturnType<typeof loadModules> | undefined;
const loadMcp = () =>
  (mcpModules ??= loadModules().catch((err: unknown) => {
    mcpModules = undefined;
    throw err;
  }));

/** How long a refused message's sender may pause before the answer goes out and the connection is cut. */
const SENDER_PAUSE_MS = 15_000;

/** JSON-RPC 2.0's "Invalid Request" error code. */
const JSONRPC_INVALID_REQUEST = -32600;

/** A 10 MB document in base64 with its JSON-RPC envelope (the fax spec's MCP limit). */
export const MCP_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** A body nesting deeper than JSON_MAX_DEPTH: answered as a JSON-RPC error (Invalid Request), before any parse. */
class TooDeepMessage extends Error {}

/**
 * The request's JSON body, refused 413 as soon as it is known to be over the limit (from
 * Content-Length, or while it streams), and TooDeepMessage when it nests deeper than `maxDepth`.
 */
async function readJsonBody(req: Request, JSONRPCMessageSchema: { safeParse(m: unknown): { success: boolean } }, maxDepth: number): Promise<unknown> {
  const tooLarge = () => httpError('payload_too_large', { what: 'MCP request body', limit: '16 MB' });
  if (Number(req.headers['content-length'] ?? 0) > MCP_BODY_LIMIT_BYTES) throw tooLarge();
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw httpError('unsupported_media_type', { expected: 'application/json', got: type || 'a body without Content-Type' });
  // Scanned as it arrives: a message nested too deep is refused at the piece that shows it, never gathered.
  const depth = new JsonDepthScan(maxDepth);
  const bytes = await readRawBody(req, MCP_BODY_LIMIT_BYTES, tooLarge, (chunk) => {
    if (depth.feed(chunk)) throw new TooDeepMessage(`the JSON-RPC message nests arrays and objects deeper than ${maxDepth} levels (JSON_MAX_DEPTH)`);
  });
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid('body', 'must be JSON (a JSON-RPC message or batch)', 400);
  }
  // Refused here with the API's {detail, code}: the transport would answer a JSON-RPC error body.
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) throw invalid('body', 'must be a JSON-RPC 2.0 message or a batch of them', 400);
  return body;
}

/** Sets Accept to what the transport requires, in the parsed and the raw headers (the transport reads the raw ones). */
function acceptJsonAndStream(req: Request): void {
  const value = 'application/json, text/event-stream';
  const raw: string[] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() !== 'accept') raw.push(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  raw.push('Accept', value);
  req.rawHeaders = raw;
  req.headers.accept = value;
}

/** The key the caller authenticated with (X-API-Key, or Authorization: Bearer, which the route copies to X-API-Key). */
function presentedKey(req: Request): string | undefined {
  const header = req.headers['x-api-key'];
  return Array.isArray(header) ? header[0] : header;
}

/**
 * POST /mcp: the MCP server over Streamable HTTP, stateless (a server per request). Each tool is
 * a request to this gateway's own HTTP API (in-process) with the caller's key, so it can do nothing the key cannot.
 */
export function registerMcpRoute(platform: Platform): void {
  const { api } = platform;
  const config = platform.config.withSection(MCP_SETTINGS);
  const settings = {
    requireApproval: () => config.get('MCP_REQUIRE_APPROVAL'),
    outboxDir: () => config.get('MCP_OUTBOX_DIR') ?? undefined,
  };
  // The access guard reads X-API-Key; MCP clients often send their key as a bearer token.
  api.router.use('/mcp', (req, _res, next) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (bearer && req.headers['x-api-key'] === undefined) req.headers['x-api-key'] = bearer[1]!;
    next();
  });

  const authenticate = (req: Request, res: Response) => {
    // The route is declared public so that any scoped key (and MCP_API_KEY) may open it; the
    // Host guard and the platform's key rule are applied here instead.
    const host = req.headers.host;
    if (host !== undefined && !hostAllowed(config, host)) throw httpError('host_not_allowed', { host: host.slice(0, 100) });
    if (res.locals.invalidKey) throw httpError('unauthorized', { reason: 'the X-API-Key sent is unknown, revoked or expired' });
    const principal = principalOf(res);
    if (principal.kind !== 'anonymous') return;
    if (platform.auth.authRequired()) throw httpError('unauthorized', { reason: 'send X-API-Key (or Authorization: Bearer) with an API key or MCP_API_KEY' });
    if (!isLoopback(req)) throw httpError('loopback_only', { reason: 'no API key exists yet: MCP answers callers on this machine only' });
  };

  api.route(
    {
      method: 'post',
      path: '/mcp',
      accessNote: 'any API key or `MCP_API_KEY` (each tool then needs its route\'s scope); loopback callers only while no key exists',
      summary: 'The MCP endpoint (Model Context Protocol, Streamable HTTP, stateless)',
      description:
        'JSON-RPC messages of the Model Context Protocol: initialize, tools/list, tools/call. Each tool is a request to a route of this API with the caller\'s key, ' +
        'so it needs that route\'s scope (see docs/mcp.md); the tools are the operations of this document that carry an `x-mcp-tool` extension (name, input schema, annotations). Stateless: GET and DELETE /mcp answer 405 `method_not_allowed`. Access: any API key, or MCP_API_KEY (X-API-Key or Authorization: Bearer); with no key configured, loopback callers only.',
      tags: ['mcp'],
      access: 'public',
      // Per key (per address without one), like the API's other budgets; each tool call is a request of its route's bucket too.
      rateLimit: { bucket: 'mcp', perMinute: () => config.get('MCP_REQUESTS_PER_MINUTE') },
      rawBody: { contentType: 'application/json', description: 'A JSON-RPC request, notification or batch (at most 16 MB, nesting at most JSON_MAX_DEPTH levels: deeper is answered 400 with a JSON-RPC error, `error.data.code` `json_too_deep`)' },
      // a public route for the DSL: the key, loopback and Host rules are authenticate()'s, the body's readJsonBody()'s
      bodyErrorStatus: 400,
      errors: ['unauthorized', 'loopback_only', 'host_not_allowed', 'unsupported_media_type'],
      responses: { 200: { description: 'The JSON-RPC answer', contentType: 'application/json' }, 202: { description: 'A notification was accepted' } },
    },
    async ({ req, res }) => {
      authenticate(req, res);
      const [{ StreamableHTTPServerTransport }, { JSONRPCMessageSchema }, { createMcpServer }, { routeTools }, { createSwitchboardClient }] = await loadMcp();
      let body: unknown;
      try {
        body = await readJsonBody(req, JSONRPCMessageSchema, platform.config.get('JSON_MAX_DEPTH'));
      } catch (err) {
        if (!(err instanceof TooDeepMessage)) throw err;
        // The rest of the body is read and dropped first, so the client is not cut off mid-send; the
        // sender is sending (the message began), so a pause is a busy client, not a body that never ends.
        const discardBytes = platform.config.get('REFUSED_BODY_DISCARD_MB') * 1024 * 1024;
        const answer = () => void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: JSONRPC_INVALID_REQUEST, message: err.message, data: { code: 'json_too_deep' } } });
        // Settles once answered, so the route does not answer 204 meanwhile.
        await new Promise((settled) => {
          res.once('close', settled);
          answerAfterBody(req, res, discardBytes, answer, SENDER_PAUSE_MS);
        });
        return;
      }
      // Answers are JSON, so a client that accepts only JSON is answered too (the transport would
      // refuse it 406 with a JSON-RPC body); a request asking for progress, from a client that
      // takes a stream, is answered as server-sent events so the notifications reach it.
      const accept = req.headers.accept ?? '';
      const stream = accept.includes('text/event-stream') && wantsProgress(body);
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) acceptJsonAndStream(req);
      const key = presentedKey(req);
      const actor = actorOf(res);
      // The tools' requests go to this app in-process with the caller's key, address and Host (checked above):
      // calling back at the socket address would meet the Host guard (a gateway on `::`, behind a proxy).
      const fetch = inProcessFetch(req.app as unknown as RequestListener, { remoteAddress: req.socket.remoteAddress, host: req.headers.host });
      const server = createMcpServer({
        sb: createSwitchboardClient({ baseUrl: 'http://switchboard.internal', fetch, ...(key ? { apiKey: key } : {}) }),
        // Built from this gateway's own /openapi.json, as `switchboard mcp` builds them from a gateway's.
        tools: () => routeTools(openApiDocument(api, platform.version)),
        settings,
        version: platform.version,
        audit: (tool, outcome, code) => platform.audit.record('mcp_call', { tool, key_id: actor, outcome, ...(code ? { code } : {}), transport: 'http' }),
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !stream });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    },
  );
  // Stateless: no session to end and no server-initiated stream. The SDK's client takes 405 for
  // "no stream"; these answers are the method rule of POST /mcp, not operations of their own.
  const methodNotAllowed = () => {
    throw httpError('method_not_allowed', { allowed: 'POST' }).withHeaders({ Allow: 'POST' });
  };
  api.router.get('/mcp', methodNotAllowed);
  api.router.delete('/mcp', methodNotAllowed);
}

/** Whether a message of the body is a request carrying a progressToken. */
function wantsProgress(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { params?: { _meta?: { progressToken?: unknown } } })?.params?._meta?.progressToken !== undefined);
}
