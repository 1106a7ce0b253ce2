import { z } from 'zod';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { actorOf } from '../../../platform/auth/access-guard.js';
import { sendStoredPdf } from '../../../platform/http/stored-pdf.js';
import type { ConfigRegistry } from '../../../platform/config/registry.js';
import { toFaxJobOut, type FaxService } from './fax-service.js';
import { FAX_TOKEN_SCOPE, type JobDocuments } from './job-documents.js';
import type { DocumentTokens } from './document-tokens.js';
import type { FaxJobStore } from './job-store.js';
import type { FaxReconciler } from '../dispatch/reconciler.js';
import { receiveUpload } from './upload.js';
import { httpError, invalid } from '../../../platform/http/error-catalogue.js';

export const FaxJobOutSchema = z.object({
  id: z.string(),
  to: z.string(),
  status: z.enum(['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled']),
  error: z.string().optional(),
  pages: z.number().int().optional(),
  backend: z.string(),
  provider_sid: z.string().optional(),
  created_at: z.string().describe('ISO 8601'),
  updated_at: z.string().describe('ISO 8601'),
});
const JobParams = z.object({ id: z.string().min(1).max(100) });

export interface FaxRouteDeps {
  service: FaxService;
  documents: JobDocuments;
  store: FaxJobStore;
  kernel: Kernel;
  config: ConfigRegistry;
  tokens: DocumentTokens;
  audit: AuditLog;
  reconciler: FaxReconciler;
  tmpDir: string;
}

export function registerFaxRoutes(api: HttpApi, deps: FaxRouteDeps): void {
  const { service, store, config } = deps;

  api.route(
    {
      method: 'post',
      path: '/fax',
      summary: 'Send a fax: multipart `to` and `file` (PDF, UTF-8 text, PNG, JPEG or TIFF)',
      description: 'The upload is streamed; over MAX_FILE_SIZE_MB answers 413 at once. The type is detected from the content.',
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: 'fax',
      rawBody: {
        contentType: 'multipart/form-data',
        schema: z.object({ to: z.string().describe('E.164 or digits: optional "+" and 6 to 20 digits'), file: z.string().meta({ format: 'binary', description: 'The document (PDF, text, PNG, JPEG or TIFF)' }) }),
      },
      responses: {
        202: { description: 'Accepted', schema: FaxJobOutSchema },
        400: { description: 'Invalid number, parameters or PDF' },
        401: { description: 'Invalid API key' },
        413: { description: 'File too large' },
        415: { description: 'Unsupported file type' },
        503: { description: 'The selected fax backend is not available' },
      },
    },
    async ({ req, res }) => {
      const upload = await receiveUpload(req, { maxBytes: config.get('MAX_FILE_SIZE_MB') * 1024 * 1024, tmpDir: deps.tmpDir, fileField: 'file' });
      try {
        if (upload.fields.to === undefined) throw invalid('to', 'required', 400);
        if (!upload.file || upload.file.size === 0) throw invalid('file', 'required (a non-empty file part named "file")', 400);
        const row = await service.submit({ to: upload.fields.to, bytes: await upload.file.bytes(), size: upload.file.size });
        res.status(202);
        return toFaxJobOut(row);
      } finally {
        await upload.discard();
      }
    },
  );

  api.route(
    {
      method: 'get',
      path: '/fax/:id',
      summary: 'A fax job',
      tags: ['fax'],
      access: { scope: 'fax:read' },
      rateLimit: 'fax',
      params: JobParams,
      responses: { 200: { description: 'The job', schema: FaxJobOutSchema }, 401: { description: 'Invalid API key' }, 404: { description: 'Job not found' } },
    },
    async ({ params }) => {
      const row = await store.get(params.id);
      if (!row) throw httpError('fax_job_not_found', { id: params.id });
      return toFaxJobOut(row);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/fax/:id/pdf',
      summary: "The job's original PDF, by short-lived token (for cloud providers to fetch)",
      tags: ['fax'],
      access: 'public',
      params: JobParams,
      query: z.object({ token: z.string().max(200).optional() }),
      responses: { 200: { description: 'The PDF', contentType: 'application/pdf' }, 403: { description: 'Token invalid or expired' }, 404: { description: 'Not found, or the document expired (ARTIFACT_TTL_DAYS)' } },
    },
    async ({ params, query, res }) => {
      const row = await store.get(params.id);
      if (!row) throw httpError('fax_job_not_found', { id: params.id });
      if (!deps.tokens.verify(FAX_TOKEN_SCOPE, row.id, query.token)) throw httpError('token_invalid');
      if (row.artifacts_removed_at) throw httpError('document_expired');
      await deps.documents.withStorage((storage) => sendStoredPdf(storage, row.pdf_key, res, { filename: `fax-${row.id}.pdf`, disposition: 'inline' }));
      deps.audit.record('pdf_served', { job_id: row.id, backend: row.backend });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/admin/fax-jobs/:id/refresh',
      summary: "Poll the job's provider for its status now",
      tags: ['admin', 'fax'],
      access: { scope: 'admin', administrative: true },
      params: JobParams,
      responses: { 200: { description: 'The job after the poll', schema: FaxJobOutSchema }, 404: { description: 'Job not found' }, 409: { description: 'The job has no provider record to poll yet' } },
    },
    async ({ params, res }) => {
      const row = await store.get(params.id);
      if (!row) throw httpError('fax_job_not_found', { id: params.id });
      if (row.status === 'disabled') throw httpError('fax_never_sent');
      if (row.dispatch_state === 'pending') throw httpError('fax_not_yet_sent');
      deps.audit.record('job_refresh_requested', { job_id: row.id, backend: row.backend, by: actorOf(res) });
      await deps.reconciler.check(row);
      return toFaxJobOut((await store.get(row.id))!);
    },
  );

}
