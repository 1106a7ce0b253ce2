import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { maskPhone } from '../logging/text-masking.js';
import { ApiCallError, type GatewayApi } from './gateway-api.js';
import { callerOf, decodeBase64Document, readOutboxFile, sha256, ToolRefusal, type FaxApprovals } from './fax-approvals.js';
import { redactCredentialsDeep } from './credential-redaction.js';

/** What one MCP session's tools act with: the API as its key, and the gateway's MCP settings. */
export interface McpToolDeps {
  api: GatewayApi;
  /** The caller's key (forwarded to the API; its digest binds approvals), or none for a local caller. */
  apiKey: string | undefined;
  approvals: FaxApprovals;
  settings: { requireApproval(): boolean; outboxDir(): string | undefined; approvalTtlSeconds(): number };
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
  const caller = callerOf(deps.apiKey);

  /** Runs a tool: errors become tool errors with the API's detail (never a stack), and every call is audited. */
  function tool<Shape extends z.ZodRawShape>(
    name: string,
    description: string,
    inputSchema: Shape,
    annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint?: boolean; openWorldHint: boolean },
    run: (args: z.infer<z.ZodObject<Shape>>) => Promise<unknown>,
  ): void {
    const handler = async (args: z.infer<z.ZodObject<Shape>>): Promise<CallToolResult> => {
      try {
        const result = await run(args);
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
  const repo = z.string().max(200).optional().describe('Repository name; defaults to REPO');

  tool('get_fax_status', 'A sent fax job by id (GET /fax/{id}; scope fax:read).', { job_id: id }, READ, ({ job_id }) => api.call('GET', `/fax/${encodeURIComponent(job_id)}`));
  tool('list_faxes', 'Sent fax jobs, newest first, numbers masked (GET /admin/fax-jobs; scope admin).', { status: z.string().max(40).optional(), limit, cursor }, READ, (q) => api.call('GET', '/admin/fax-jobs', { query: q }));
  tool('list_inbound', 'Received faxes, newest first (GET /inbound; scope inbound:list, numbers in full with inbound:read).', { status: z.string().max(40).optional(), limit, cursor }, READ, (q) => api.call('GET', '/inbound', { query: q }));
  tool('get_inbound', 'One received fax with a short-lived PDF link (GET /inbound/{id}; scope inbound:read).', { inbound_id: id }, READ, ({ inbound_id }) => api.call('GET', `/inbound/${encodeURIComponent(inbound_id)}`));
  const topK = z.number().int().min(1).max(100).optional();
  // Code comes back with credential-shaped lines redacted (a key planted in a repository stays out of the client).
  tool('search_code', 'Search a repository\'s code (GET /api/search; scope search:read). Credential-shaped text in snippets is redacted.', { q: z.string().min(1).max(1000), repo, top_k: topK }, READ, async (q) => redactCredentialsDeep(await api.call('GET', '/api/search', { query: q })));
  tool('answer_question', 'Answer a question about a repository\'s code with citations (POST /api/rag; scope search:answer). Credential-shaped text is redacted.', { question: z.string().min(1).max(4000), repo, top_k: topK }, READ, async (body) => redactCredentialsDeep(await api.call('POST', '/api/rag', { json: body })));
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

  tool(
    'prepare_fax',
    'Stage a fax for sending: answers a preview (pages, masked number, SHA-256) and an approval id that send_fax needs (valid MCP_APPROVAL_TTL_SECONDS). Sends nothing.',
    documentInput,
    { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    async (args) => {
      const fax = await deps.approvals.prepare(caller, args.to, await documentOf(args));
      return { approval_id: fax.approvalId, to: maskPhone(fax.to), pages: fax.pages, size_bytes: fax.bytes.length, sha256: fax.sha256, expires_at: new Date(fax.expiresAt).toISOString() };
    },
  );
  tool(
    'send_fax',
    'Send the fax an approval id from prepare_fax names, exactly that document to exactly that number (POST /fax; scope fax:send). `to` and `sha256`, when given, must match the approval. Retrying with the same id never sends twice. With MCP_REQUIRE_APPROVAL=false, `to` and a document may be given without an approval.',
    { approval_id: z.string().max(100).optional(), to: z.string().min(3).max(40).optional(), sha256: z.string().regex(/^[0-9a-fA-F]{64}$/).optional(), document_base64: documentInput.document_base64, file_path: documentInput.file_path },
    { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    async (args) => {
      let to: string;
      let bytes: Buffer;
      let idempotencyKey: string;
      let approved: ReturnType<FaxApprovals['take']> | undefined;
      if (args.approval_id !== undefined) {
        if (args.document_base64 !== undefined || args.file_path !== undefined) {
          // A document sent along must be the approved one: compare digests.
          args = { ...args, sha256: sha256(await documentOf(args)) };
        }
        approved = deps.approvals.take(caller, args.approval_id!, { to: args.to, sha256: args.sha256 });
        ({ to, bytes } = approved);
        idempotencyKey = approved.approvalId;
      } else {
        if (deps.settings.requireApproval()) throw new ToolRefusal('sending needs an approval_id from prepare_fax (MCP_REQUIRE_APPROVAL is on)');
        if (args.to === undefined) throw new ToolRefusal('to is required');
        to = args.to;
        bytes = await documentOf(args);
        idempotencyKey = randomUUID();
      }
      const form = new FormData();
      form.set('to', to);
      form.set('file', new Blob([new Uint8Array(bytes)]), 'document');
      const job = await api.call('POST', '/fax', { form, headers: { 'Idempotency-Key': idempotencyKey } });
      if (approved) deps.approvals.markSent(approved);
      return job;
    },
  );
  return server;
}
