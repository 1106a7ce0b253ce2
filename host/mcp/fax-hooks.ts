import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { decodeBase64Document, readOutboxFile, sha256 } from './mcp-documents.js';
import type { McpSettings } from './mcp-settings.js';
import type { ToolHook } from './tool-hooks.js';
import { ToolRefusal } from './tool-result.js';

/** The document of prepare_fax and send_fax: base64 in the call, or a file of MCP_OUTBOX_DIR (a form's `file` is no JSON argument). */
const documentArguments = {
  document_base64: z.string().max(16 * 1024 * 1024).optional().describe('The document (PDF, text, PNG, JPEG or TIFF), base64'),
  file_path: z.string().max(1000).optional().describe('A file inside MCP_OUTBOX_DIR, instead of document_base64'),
};

type DocumentArguments = { document_base64?: unknown; file_path?: unknown };

function givesDocument(args: DocumentArguments): boolean {
  return args.document_base64 !== undefined || args.file_path !== undefined;
}

async function documentOf(args: DocumentArguments, settings: McpSettings): Promise<Buffer> {
  if ((args.document_base64 === undefined) === (args.file_path === undefined)) throw new ToolRefusal('give exactly one of document_base64 and file_path');
  return args.document_base64 !== undefined ? decodeBase64Document(String(args.document_base64)) : readOutboxFile(settings.outboxDir(), String(args.file_path));
}

/** prepare_fax: the document uploaded to POST /fax/prepare with the number; the answer is the preview and approval id. */
export const prepareFax: ToolHook = {
  arguments: documentArguments,
  run: async ({ args, request, sb, settings, signal }) => sb.prepareFax({ to: request.fields.to!, file: await documentOf(args, settings), signal }),
};

/**
 * send_fax: by approval id (a document given along must be the approved one: the API compares
 * digests); without one, and only with MCP_REQUIRE_APPROVAL=false, the number and document in
 * one POST /fax.
 */
export const sendFax: ToolHook = {
  arguments: documentArguments,
  note: 'With MCP_REQUIRE_APPROVAL=false, `to` and a document may be given without an approval (POST /fax).',
  async run({ args, request, sb, settings, signal }) {
    const expected = request.json ?? {};
    if (args.approval_id !== undefined) {
      const given = typeof expected.sha256 === 'string' ? expected.sha256 : undefined;
      const digest = givesDocument(args) ? sha256(await documentOf(args, settings)) : given;
      if (given !== undefined && givesDocument(args) && digest !== given.toLowerCase()) throw new ToolRefusal('the document given is not the one sha256 names');
      const when = typeof expected.send_at === 'string' ? { send_at: expected.send_at } : {};
      return sb.sendApproved(String(args.approval_id), { ...(typeof expected.to === 'string' ? { to: expected.to } : {}), ...(digest !== undefined ? { sha256: digest } : {}), ...when }, { signal });
    }
    if (settings.requireApproval()) throw new ToolRefusal('sending needs an approval_id from prepare_fax (MCP_REQUIRE_APPROVAL is on)');
    if (typeof args.to !== 'string') throw new ToolRefusal('to is required');
    // Sending now what was asked for later would be worse than refusing.
    if (expected.send_at !== undefined) throw new ToolRefusal('send_at needs an approval_id from prepare_fax');
    return sb.sendFax({ to: args.to, file: await documentOf(args, settings), idempotencyKey: randomUUID(), signal });
  },
};
