import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { actorOf } from '../../../platform/auth/access-guard.js';
import type { FaxConfig } from '../fax-settings.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { invalid } from '../../../platform/http/error-catalogue.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import type { DocumentPool } from '../documents/index.js';
import type { FaxApprovals } from './fax-approvals.js';
import { FaxJobOutSchema } from './fax-job-out.js';
import { toFaxJobOut, type FaxService } from './fax-service.js';
import type { FaxJobStore } from './job-store.js';
import { normalizePhone, PHONE_RULE } from './phone.js';
import { receiveUpload, UPLOAD_ERRORS } from '../documents/upload-receiver.js';
import { sendAtOf } from './send-at.js';

export const PreparedFaxSchema = z
  .object({
    approval_id: z.string().describe('Send with POST /fax/approvals/{approval_id}/send (by the same API key, once, before expires_at)'),
    to: z.string().describe('The destination, masked (last four digits)'),
    pages: z.number().int().describe('Pages as the fax will have them'),
    size_bytes: z.number().int(),
    sha256: z.string().describe('SHA-256 (hex) of the document as uploaded'),
    expires_at: z.string().describe('ISO time after which the approval is refused (MCP_APPROVAL_TTL_SECONDS)'),
  })
  .meta({ id: 'PreparedFax' });

const SendByApprovalBody = z
  .object({
    to: z.string().max(40).optional().describe('When given, must be the prepared number (else 422 `approval_mismatch`)'),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hex digits')
      .optional()
      .describe('When given, must be the SHA-256 of the prepared document (else 422 `approval_mismatch`)'),
    send_at: z.string().max(64).optional().describe('ISO 8601 with a zone: send then, not now (as `send_at` of POST /fax)'),
  })
  .strict();

export interface ApprovalRouteDeps {
  approvals: FaxApprovals;
  service: FaxService;
  store: FaxJobStore;
  config: FaxConfig;
  audit: AuditLog;
  tmpDir: string;
  documentPool: DocumentPool;
}

/** POST /fax/prepare and POST /fax/approvals/{id}/send: sending bound to an approved document and number. */
export function registerApprovalRoutes(api: HttpApi, deps: ApprovalRouteDeps): void {
  const { approvals, config } = deps;
  api.route(
    {
      method: 'post',
      path: '/fax/prepare',
      summary: 'Prepare a fax for sending by approval: multipart `to` and `file`; answers a preview and an approval id, sends nothing',
      description:
        'The document is checked and kept in the configured storage (the approval in the database) for MCP_APPROVAL_TTL_SECONDS; the preview gives its pages, the number masked and its SHA-256. ' +
        'POST /fax/approvals/{approval_id}/send, on any instance of a cluster, sends exactly that document to exactly that number, once, for the same API key. ' +
        'With FAX_REQUIRE_APPROVAL=true this is the only way to send. Cover pages and redial options are not available on this path.',
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      // The tool takes the document as base64 or an outbox path (its hook's arguments), not as a form's file.
      mcp: {
        name: 'prepare_fax',
        description: 'Stage a fax for sending: answers a preview (pages, masked number, SHA-256) and an approval id that send_fax needs (valid for the approval\'s lifetime). Sends nothing',
        omit: ['file'],
        hook: 'prepare-fax',
      },
      rawBody: {
        contentType: 'multipart/form-data',
        schema: z.object({ to: z.string().describe('E.164 or digits: optional "+" and 6 to 20 digits'), file: z.string().meta({ format: 'binary', description: 'The document (PDF, text, PNG, JPEG or TIFF)' }) }),
      },
      bodyErrorStatus: 400,
      errors: [...UPLOAD_ERRORS, 'invalid_document', 'unsupported_document', 'document_too_complex', 'approvals_pending_limit', 'plugin_not_available'],
      responses: { 201: { description: 'Prepared: the preview and approval id', schema: PreparedFaxSchema } },
    },
    async ({ req, res }) => {
      const upload = await receiveUpload(req, { maxBytes: config.get('MAX_FILE_SIZE_MB') * 1024 * 1024, tmpDir: deps.tmpDir, fileField: 'file' });
      try {
        const to = normalizePhone(upload.fields.to);
        if (!to) throw invalid('to', upload.fields.to === undefined ? 'required' : PHONE_RULE, 400);
        if (!upload.file || upload.file.size === 0) throw invalid('file', 'required (a non-empty file part named "file")', 400);
        const bytes = await upload.file.bytes();
        // The document as the fax will carry it: an unusable one is refused now, not at send.
        const { pages } = await deps.documentPool.normalize(bytes, config.get('FAX_PAPER_SIZE'));
        const fax = await approvals.prepare(actorOf(res), to, bytes, pages);
        deps.audit.record('fax_prepared', { approval_id: fax.approvalId, to: maskPhone(to), pages, sha256: fax.sha256, by: actorOf(res) });
        res.status(201);
        return { approval_id: fax.approvalId, to: maskPhone(to), pages, size_bytes: bytes.length, sha256: fax.sha256, expires_at: new Date(fax.expiresAt).toISOString() };
      } finally {
        await upload.discard();
      }
    },
  );

  api.route(
    {
      method: 'post',
      path: '/fax/approvals/:id/send',
      summary: 'Send the fax an approval id names: exactly that document to exactly that number, once',
      description:
        'Only the API key that prepared it may send it. `to` and `sha256`, when given, must match what was prepared. ' +
        'A failed send before a job exists leaves the approval usable; a sent one answers 409 `approval_used` after.',
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      params: z.object({ id: z.string().min(1).max(100) }),
      body: SendByApprovalBody,
      mcp: {
        name: 'send_fax',
        description: 'Send the fax an approval id from prepare_fax names, exactly that document to exactly that number, once. `to` and `sha256`, when given, must match the approval',
        aliases: { approval_id: 'id' },
        // Without an approval id the hook may send in one step (MCP_REQUIRE_APPROVAL=false).
        optional: ['approval_id'],
        annotations: { destructive: true, idempotent: true, openWorld: true },
        hook: 'send-fax',
      },
      // the approved document was checked at prepare; sending it may still find no backend or no storage
      errors: ['approval_unknown', 'approval_used', 'approval_expired', 'approval_mismatch', 'approval_document_changed', 'send_at_out_of_range', 'fax_backend_unavailable', 'storage_unavailable', 'plugin_not_available'],
      responses: { 202: { description: 'Accepted: the job', schema: FaxJobOutSchema } },
    },
    async ({ params, body, res }) => {
      const actor = actorOf(res);
      // Checked before the claim: a refused time leaves the approval unspent.
      const sendAt = body.send_at === undefined ? undefined : sendAtOf(body.send_at, config.get('FAX_SCHEDULE_HORIZON_DAYS'));
      const fax = await approvals.claim(actor, params.id, { to: body.to === undefined ? undefined : (normalizePhone(body.to) ?? body.to), sha256: body.sha256 });
      let row;
      try {
        const bytes = await approvals.document(fax);
        // The approval id is the send's Idempotency-Key: a retry after a lost answer, or after the
        // instance that claimed it died mid-send, never sends twice.
        ({ row } = await deps.service.submit({ to: fax.to, documents: [{ bytes, size: bytes.length }] }, { idempotency: { scope: actor, key: `approval:${fax.approvalId}` }, ...(sendAt ? { sendAt } : {}) }));
      } catch (error) {
        await approvals.release(fax).catch(() => {});
        throw error;
      }
      await approvals.sent(fax, row.id);
      res.status(202);
      return toFaxJobOut(row, await deps.store.attempts.list(row.id));
    },
  );
}
