import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ReadResourceResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ApiCallError, type GatewayApi } from './gateway-api.js';
import { decodeBase64Document, readOutboxFile, sha256, ToolRefusal } from './mcp-documents.js';
import { redactCredentialsDeep } from './credential-redaction.js';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What one MCP session's tools act with: the API as its key, and the gateway's MCP settings. */
export interface McpToolDeps {
  api: GatewayApi;
  settings: { requireApproval(): boolean; outboxDir(): string | undefined };
  /** One record per tool call: the tool and its outcome, never its arguments. */
  audit(tool: string, outcome: 'ok' | 'error', code?: string): void;
  version: string;
}

const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

function text(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value as Record<string, unknown> };
}

/** An MCP server whose tools are requests to the gateway's HTTP API (see docs/mcp.md). */
export function createMcpServer(deps: McpToolDeps): McpServer {
  const server = new McpServer({ name: 'switchboard', version: deps.version });
  const { api } = deps;

  /** Runs a tool: errors become tool errors with the API's detail (never a stack), and every call is audited. */
  function tool<Shape extends z.ZodRawShape>(
    name: string,
    description: string,
    inputSchema: Shape,
    annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint?: boolean; openWorldHint: boolean },
    run: (args: z.infer<z.ZodObject<Shape>>, extra: Extra) => Promise<unknown>,
  ): void {
    const handler = async (args: z.infer<z.ZodObject<Shape>>, extra: Extra): Promise<CallToolResult> => {
      try {
        const result = await run(args, extra);
        deps.audit(name, 'ok');
        return text(result);
      } catch (error) {
        const code = error instanceof ApiCallError ? error.code : error instanceof ToolRefusal ? 'refused' : 'internal_error';
        deps.audit(name, 'error', code);
        const detail = error instanceof ApiCallError || error instanceof ToolRefusal ? error.message : 'the tool failed (see the gateway log)';
        return { isError: true, content: [{ type: 'text', text: JSON.stringify({ detail, code }) }] };
      }
    };
    server.registerTool(name, { description, inputSchema, annotations }, handler as never);
  }

  const id = z.string().min(1).max(200);
  const limit = z.number().int().min(1).max(100).optional();
  const cursor = z.string().max(500).optional();
  const repo = z.string().max(200).optional().describe('Repository name; defaults to the gateway\'s default repository');

  tool('get_fax_status', 'A sent fax job by id (GET /fax/{id}; scope fax:read).', { job_id: id }, READ, ({ job_id }) => api.call('GET', `/fax/${encodeURIComponent(job_id)}`));
  tool('list_faxes', 'Sent fax jobs, newest first, numbers masked (GET /admin/fax-jobs; scope admin).', { status: z.string().max(40).optional(), limit, cursor }, READ, (q) => api.call('GET', '/admin/fax-jobs', { query: q }));
  tool('list_inbound', 'Received faxes, newest first (GET /inbound; scope inbound:list, numbers in full with inbound:read).', { status: z.string().max(40).optional(), limit, cursor }, READ, (q) => api.call('GET', '/inbound', { query: q }));
  tool('get_inbound', 'One received fax with a short-lived PDF link (GET /inbound/{id}; scope inbound:read).', { inbound_id: id }, READ, ({ inbound_id }) => api.call('GET', `/inbound/${encodeURIComponent(inbound_id)}`));
  const topK = z.number().int().min(1).max(100).optional();
  // Code comes back with credential-shaped lines redacted (a key planted in a repository stays out of the client).
  tool('search_code', 'Search a repository\'s code (GET /api/search; scope search:read). Credential-shaped text in snippets is redacted.', { q: z.string().min(1).max(1000), repo, top_k: topK }, READ, async (q) => redactCredentialsDeep(await api.call('GET', '/api/search', { query: q })));
  tool(
    'answer_question',
    'Answer a question about a repository\'s code with citations (POST /api/rag; scope search:answer). Sends progress notifications while it works when the request carries a progressToken. Credential-shaped text is redacted.',
    { question: z.string().min(1).max(4000), repo, top_k: topK },
    READ,
    async (body, extra) => {
      const token = extra._meta?.progressToken;
      if (token === undefined) return redactCredentialsDeep(await api.call('POST', '/api/rag', { json: body }));
      // Progress counts steps; its messages never carry the answer's text (that is redacted at the end).
      let step = 0;
      let characters = 0;
      const progress = (message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } });
      await progress('searching the repository');
      const answer = await api.events(
        '/api/rag',
        { ...body, stream: true },
        async (event, data) => {
          if (event === 'reset') {
            characters = 0;
            await progress('a fallback is writing the answer again');
          } else if (event === 'token') {
            const before = characters;
            characters += String((data as { text?: unknown }).text ?? '').length;
            // One notification per 200 characters written, and one for the first.
            if (before === 0 || Math.floor(before / 200) !== Math.floor(characters / 200)) await progress(`writing the answer (${characters} characters)`);
          }
        },
        extra.signal,
      );
      await progress('answer ready');
      return redactCredentialsDeep(answer);
    },
  );
  tool('start_index', 'Start indexing a repository (POST /api/index/start; scope search:index).', { repo, enrich: z.boolean().optional() }, { readOnlyHint: false, destructiveHint: false, openWorldHint: false }, (body) => api.call('POST', '/api/index/start', { json: body }));
  tool('index_status', 'Progress of the latest indexing run (GET /api/index/status; scope search:read).', { repo }, READ, (q) => api.call('GET', '/api/index/status', { query: q }));
  tool('list_plugins', 'Every plugin with its state and health (GET /plugins; scope admin).', {}, READ, async () => {
    const list = (await api.call('GET', '/plugins')) as { plugins: Array<Record<string, unknown>> };
    return { plugins: list.plugins.map((p) => ({ id: p.id, kind: p.kind, state: p.state, health: p.health })) };
  });
  tool('plugin_health', 'One plugin with its state, health and diagnostics (GET /plugins/{id}; scope admin).', { plugin_id: id }, READ, ({ plugin_id }) => api.call('GET', `/plugins/${encodeURIComponent(plugin_id)}`));
  tool('list_alerts', 'Alerts firing now (GET /admin/alerts; scope admin).', {}, READ, () => api.call('GET', '/admin/alerts'));

  const documentInput = {
    to: z.string().min(3).max(40).describe('The fax number (E.164)'),
    document_base64: z.string().max(16 * 1024 * 1024).optional().describe('The document (PDF, text, PNG, JPEG or TIFF), base64'),
    file_path: z.string().max(1000).optional().describe('A file inside MCP_OUTBOX_DIR, instead of document_base64'),
  };
  async function documentOf(args: { document_base64?: string | undefined; file_path?: string | undefined }): Promise<Buffer> {
    if ((args.document_base64 === undefined) === (args.file_path === undefined)) throw new ToolRefusal('give exactly one of document_base64 and file_path');
    return args.document_base64 !== undefined ? decodeBase64Document(args.document_base64) : readOutboxFile(deps.settings.outboxDir(), args.file_path!);
  }

  /** The document as a form part: POST /fax and POST /fax/prepare take `to` and `file`. */
  function faxForm(to: string, bytes: Buffer): FormData {
    const form = new FormData();
    form.set('to', to);
    form.set('file', new Blob([new Uint8Array(bytes)]), 'document');
    return form;
  }

  tool(
    'prepare_fax',
    'Stage a fax for sending (POST /fax/prepare; scope fax:send): answers a preview (pages, masked number, SHA-256) and an approval id that send_fax needs (valid for the approval\'s lifetime). Sends nothing.',
    documentInput,
    { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async (args) => api.call('POST', '/fax/prepare', { form: faxForm(args.to, await documentOf(args)) }),
  );
  tool(
    'send_fax',
    'Send the fax an approval id from prepare_fax names, exactly that document to exactly that number, once (POST /fax/approvals/{id}/send; scope fax:send). `to` and `sha256`, when given, must match the approval. With MCP_REQUIRE_APPROVAL=false, `to` and a document may be given without an approval (POST /fax).',
    { approval_id: z.string().max(100).optional(), to: z.string().min(3).max(40).optional(), sha256: z.string().regex(/^[0-9a-fA-F]{64}$/).optional(), document_base64: documentInput.document_base64, file_path: documentInput.file_path },
    { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    async (args) => {
      if (args.approval_id !== undefined) {
        // A document sent along must be the approved one: the API compares digests.
        const digest = args.document_base64 !== undefined || args.file_path !== undefined ? sha256(await documentOf(args)) : args.sha256;
        if (args.sha256 !== undefined && digest !== undefined && digest !== args.sha256.toLowerCase()) throw new ToolRefusal('the document given is not the one sha256 names');
        const json = { ...(args.to !== undefined ? { to: args.to } : {}), ...(digest !== undefined ? { sha256: digest } : {}) };
        return api.call('POST', `/fax/approvals/${encodeURIComponent(args.approval_id)}/send`, { json });
      }
      if (deps.settings.requireApproval()) throw new ToolRefusal('sending needs an approval_id from prepare_fax (MCP_REQUIRE_APPROVAL is on)');
      if (args.to === undefined) throw new ToolRefusal('to is required');
      return api.call('POST', '/fax', { form: faxForm(args.to, await documentOf(args)), headers: { 'Idempotency-Key': randomUUID() } });
    },
  );

  registerResources(server, deps);
  return server;
}

/** Reads a resource: its API answer as JSON text; errors carry the API's detail. */
async function resourceJson(uri: URL, deps: McpToolDeps, read: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const body = await read();
    deps.audit(`resource:${uri.protocol}//${uri.host}`, 'ok');
    return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 2) }] };
  } catch (error) {
    deps.audit(`resource:${uri.protocol}//${uri.host}`, 'error', error instanceof ApiCallError ? error.code : 'internal_error');
    // The SDK answers a thrown error as a JSON-RPC error with this message.
    throw new Error(error instanceof ApiCallError ? `${error.detail} (${error.code})` : 'the resource could not be read (see the gateway log)');
  }
}

/**
 * Resources: the OpenAPI document, and a repository's recent traces (GET /api/traces, one by name,
 * the latest), each read through the API with the caller's key (traces need search:read).
 */
function registerResources(server: McpServer, deps: McpToolDeps): void {
  const { api } = deps;
  server.registerResource('openapi', 'switchboard://openapi.json', { title: 'The gateway\'s OpenAPI document (GET /openapi.json)', mimeType: 'application/json' }, (uri) =>
    resourceJson(uri, deps, () => api.call('GET', '/openapi.json')),
  );
  const repoOf = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';
  server.registerResource(
    'traces',
    new ResourceTemplate('switchboard://traces/{repo}', { list: undefined }),
    { title: 'Recent traces of a repository, newest first (GET /api/traces; scope search:read)', mimeType: 'application/json' },
    (uri, { repo }) =>
      resourceJson(uri, deps, async () => {
        const name = repoOf(repo);
        const listing = (await api.call('GET', '/api/traces', { query: { repo: name } })) as { repo: string; files: Array<{ name: string; mtime: string }> };
        return { repo: listing.repo, traces: listing.files.slice(0, 50).map((f) => ({ name: f.name, mtime: f.mtime, uri: `switchboard://traces/${encodeURIComponent(listing.repo)}/${f.name}` })) };
      }),
  );
  server.registerResource(
    'trace',
    new ResourceTemplate('switchboard://traces/{repo}/{name}', { list: undefined }),
    { title: 'One trace of a repository by file name, or `latest` (GET /api/traces/{name}; scope search:read)', mimeType: 'application/json' },
    (uri, { repo, name }) =>
      resourceJson(uri, deps, async () => {
        const file = repoOf(name);
        const path = file === 'latest' ? '/api/traces/latest' : `/api/traces/${encodeURIComponent(file)}`;
        return redactCredentialsDeep(await api.call('GET', path, { query: { repo: repoOf(repo) } }));
      }),
  );
}
