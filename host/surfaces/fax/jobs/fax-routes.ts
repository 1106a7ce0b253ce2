import { z } from 'zod';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { actorOf, principalOf } from '../../../platform/auth/access-guard.js';
import { grants } from '../../../platform/auth/scopes.js';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { checkedWebhookUrl } from '../status-events/webhook-url.js';
import { sendStoredPdf } from '../../../platform/http/stored-pdf.js';
import type { FaxConfig } from '../fax-settings.js';
import { toFaxBatchOut, toFaxJobOut, type FaxService, type SubmitOptions } from './fax-service.js';
import { assertDocumentStored, FaxBatchOutSchema, FaxJobOutSchema, foundOrNotFound, JOB_PDF_ERRORS, jobOrNotFound } from './fax-job-out.js';
import { renderTransmissionReport } from './transmission-report.js';
import { isFinal } from './job-states.js';
import { parseOr } from '../../../platform/http/api.js';
import { createHash } from 'node:crypto';
import { FAX_TOKEN_SCOPE, type JobDocuments } from './job-documents.js';
import type { DocumentTokens } from './document-tokens.js';
import type { FaxJobStore } from './job-store.js';
import type { FaxReconciler } from '../dispatch/reconciler.js';
import { receiveUpload, UPLOAD_ERRORS } from '../documents/upload-receiver.js';
import { invalid } from '../../../platform/http/error-catalogue.js';
import { faxErrors } from '../fax-errors.js';
import { sendAtOf } from './send-at.js';

/** Cover fields are typeset as plain text: printable characters only (line breaks and tabs in the message; multipart sends CRLF). */
const coverText = (max: number, multiline: boolean) =>
  z
    .string()
    .max(max, `at most ${max} characters`)
    .refine((v) => !(multiline ? /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/ : /[\u0000-\u001f\u007f]/).test(v), multiline ? 'control characters other than line breaks and tabs are not allowed' : 'control characters are not allowed')
    .optional();
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\s*\d{1,6}\s*$/, 'a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `at least ${min}`).max(max, `at most ${max}`))
    .optional();

/** The multipart fields of POST /fax besides the files. */
const SubmitFields = z.object({
  to: z
    .union([z.string(), z.array(z.string())])
    .describe('E.164 or digits: optional "+" and 6 to 20 digits. Repeated (up to FAX_MAX_RECIPIENTS), a batch: one job per number sharing one stored document, answered with the batch'),
  cover_to: coverText(100, false).describe('Cover page: the recipient (default: the destination number). Any cover_* field adds a cover page.'),
  cover_from: coverText(100, false).describe('Cover page: the sender'),
  cover_subject: coverText(200, false).describe('Cover page: the subject'),
  cover_message: coverText(1000, true).describe('Cover page: the message (line breaks kept)'),
  retry_max_attempts: wholeNumber(1, 10).describe('Dial attempts when the line is busy, unanswered or failed (1 to 10; default FAX_RETRY_MAX_ATTEMPTS)'),
  retry_delay_seconds: wholeNumber(0, 86400).describe('Seconds between those attempts (0 to 86400; default FAX_RETRY_DELAY_SECONDS)'),
  send_at: z.string().max(64).optional().describe('ISO 8601 with a zone: send then, not now (within FAX_SCHEDULE_HORIZON_DAYS); the job waits in `queued` and can be canceled until it starts'),
  callback_url: z.string().max(2000).optional().describe('https URL the status events of this job are POSTed to, signed with WEBHOOK_SIGNING_SECRET (docs/fax/webhooks.md); the number in full when the key holds fax:read'),
});
const SubmitHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255, 'at most 255 characters')
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional()
    .describe('Makes a retried submit safe: the same key (per API key, kept FAX_IDEMPOTENCY_TTL_HOURS) with the same document, number and options answers 200 with the original job and sends nothing; with anything different 422 `idempotency_key_reused`.'),
});
const JobParams = z.object({ id: z.string().min(1).max(100) });
const DocumentPart = z.string().meta({ format: 'binary' });

export interface FaxRouteDeps {
  service: FaxService;
  documents: JobDocuments;
  store: FaxJobStore;
  kernel: Kernel;
  config: FaxConfig;
  tokens: DocumentTokens;
  audit: AuditLog;
  reconciler: FaxReconciler;
  outbound: OutboundGuard;
  tmpDir: string;
}

export function registerFaxRoutes(api: HttpApi, deps: FaxRouteDeps): void {
  const { service, store, config } = deps;
  const callbackOf = (value: string, res: Parameters<typeof actorOf>[0]) => {
    const url = checkedWebhookUrl('callback_url', value, deps);
    if (!config.get('WEBHOOK_SIGNING_SECRET')) throw faxErrors.error('callback_url_unavailable');
    return { url, fullNumbers: grants(principalOf(res).scopes, 'fax:read') };
  };

  api.route(
    {
      method: 'post',
      path: '/fax',
      summary: 'Send a fax: multipart `to` and `file` (PDF, UTF-8 text, PNG, JPEG or TIFF)',
      description:
        'With FAX_REQUIRE_APPROVAL=true refused 403: prepare with POST /fax/prepare and send with POST /fax/approvals/{id}/send. The upload is streamed; over MAX_FILE_SIZE_MB answers 413 at once. The type is detected from the content. Several `file` parts (up to FAX_MAX_FILES_PER_FAX, together up to FAX_MAX_TOTAL_UPLOAD_MB) are merged in order into one document. Several `to` fields (up to FAX_MAX_RECIPIENTS) make a batch: one job per number sharing one stored document, answered as the batch (GET /fax/batches/{id}); `send_at`, the options and the `Idempotency-Key` cover every job of it. Optional: a cover page (`cover_*` fields, rendered from FAX_COVER_TEMPLATE, first, and counted in `pages`; in a batch its "To" is `cover_to` or blank), the redial policy for busy or unanswered lines (`retry_*`), and an `Idempotency-Key` header.',
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      rawBody: {
        contentType: 'multipart/form-data',
        schema: SubmitFields.extend({
          file: z.array(DocumentPart).min(1).describe('The document (PDF, text, PNG, JPEG or TIFF): one part, or several, merged in order (up to FAX_MAX_FILES_PER_FAX)'),
        }),
      },
      headers: SubmitHeaders,
      bodyErrorStatus: 400,
      errors: ['approval_required', ...UPLOAD_ERRORS, 'too_many_files', 'too_many_recipients', 'upload_too_large', 'invalid_document', 'unsupported_document', 'document_too_complex', 'idempotency_key_reused', 'send_at_out_of_range', 'webhook_url_refused', 'callback_url_unavailable', 'fax_backend_unavailable', 'storage_unavailable'],
      responses: {
        200: { description: 'An earlier submit with this Idempotency-Key (same documents, numbers and options) made this job or batch; nothing new was sent', schema: z.union([FaxJobOutSchema, FaxBatchOutSchema]) },
        202: { description: 'Accepted: the job, or with several `to` the batch', schema: z.union([FaxJobOutSchema, FaxBatchOutSchema]) },
      },
    },
    async ({ req, res, headers }) => {
      if (config.get('FAX_REQUIRE_APPROVAL')) throw faxErrors.error('approval_required');
      const maxFiles = config.get('FAX_MAX_FILES_PER_FAX');
      const maxRecipients = config.get('FAX_MAX_RECIPIENTS');
      const maxTotalMb = config.get('FAX_MAX_TOTAL_UPLOAD_MB');
      const upload = await receiveUpload(req, {
        maxBytes: config.get('MAX_FILE_SIZE_MB') * 1024 * 1024,
        tmpDir: deps.tmpDir,
        fileField: 'file',
        maxFiles,
        tooManyFiles: () => faxErrors.error('too_many_files', { limit: maxFiles }),
        maxTotalBytes: maxTotalMb * 1024 * 1024,
        tooLargeTotal: () => faxErrors.error('upload_too_large', { limit: maxTotalMb }),
        maxRepeats: { field: 'to', max: maxRecipients, refusal: () => faxErrors.error('too_many_recipients', { limit: maxRecipients }) },
      });
      try {
        if (upload.fields.to === undefined) throw invalid('to', 'required', 400);
        const fields = parseOr(SubmitFields, upload.fields, 400, 'form');
        if (!upload.files.length) throw invalid('file', 'required (a non-empty file part named "file")', 400);
        const empty = upload.files.findIndex((f) => f.size === 0);
        if (empty >= 0) throw invalid('file', upload.files.length === 1 ? 'required (a non-empty file part named "file")' : `file ${empty + 1} is empty`, 400);
        const key = (headers as z.infer<typeof SubmitHeaders>)['Idempotency-Key'];
        const cover = { to: fields.cover_to, from: fields.cover_from, subject: fields.cover_subject, message: fields.cover_message };
        const options: SubmitOptions = {
          ...(Object.values(cover).some((v) => v !== undefined) ? { cover: Object.fromEntries(Object.entries(cover).filter(([, v]) => v !== undefined)) } : {}),
          ...(fields.retry_max_attempts !== undefined || fields.retry_delay_seconds !== undefined ? { retry: { maxAttempts: fields.retry_max_attempts, delaySeconds: fields.retry_delay_seconds } } : {}),
          ...(key ? { idempotency: { scope: actorOf(res), key } } : {}),
          ...(fields.callback_url !== undefined ? { callback: callbackOf(fields.callback_url, res) } : {}),
          submittedBy: actorOf(res),
          ...(fields.send_at !== undefined ? { sendAt: sendAtOf(fields.send_at, config.get('FAX_SCHEDULE_HORIZON_DAYS')) } : {}),
        };
        const documents = await Promise.all(upload.files.map(async (f) => ({ bytes: await f.bytes(), size: f.size })));
        const numbers = upload.repeated.to ?? [];
        if (numbers.length > 1) {
          const batch = await service.submitBatch({ to: numbers, documents }, options);
          res.status(batch.replayed ? 200 : 202);
          return toFaxBatchOut(batch.batchId, batch.rows);
        }
        const { row, replayed } = await service.submit({ to: fields.to, documents }, options);
        res.status(replayed ? 200 : 202);
        // A job created by this request has no attempt yet: no second query to say so.
        return toFaxJobOut(row, replayed ? await store.attempts.list(row.id) : []);
      } finally {
        await upload.discard();
      }
    },
  );

  // Before GET /fax/{id}/…: /fax/batches/report is a batch, never the report of a job "batches".
  api.route(
    {
      method: 'get',
      path: '/fax/batches/:id',
      summary: 'A batch of fax jobs (a POST /fax with several `to`): each job with its number and status',
      tags: ['fax'],
      access: { scope: 'fax:read' },
      rateLimit: { bucket: 'fax' },
      params: JobParams,
      errors: ['fax_batch_not_found'],
      responses: { 200: { description: 'The batch', schema: FaxBatchOutSchema } },
    },
    async ({ params }) => {
      const rows = await store.batchJobs(params.id);
      if (!rows.length) throw faxErrors.error('fax_batch_not_found', { id: params.id });
      return toFaxBatchOut(params.id, rows);
    },
  );

  api.route(
    {
      method: 'get',
      path: '/fax/:id',
      summary: 'A fax job',
      mcp: { name: 'get_fax_status', description: 'A sent fax job by id', aliases: { job_id: 'id' } },
      tags: ['fax'],
      access: { scope: 'fax:read' },
      rateLimit: { bucket: 'fax' },
      params: JobParams,
      errors: ['fax_job_not_found'],
      responses: { 200: { description: 'The job', schema: FaxJobOutSchema } },
    },
    async ({ params }) => {
      const { row, resentAs } = foundOrNotFound(await store.getWithResends(params.id), params.id);
      // An attempt row is written in the same transaction that counts it on the job: none to read while the count is 0.
      const out = toFaxJobOut(row, row.attempts > 0 ? await store.attempts.list(row.id) : []);
      return resentAs.length ? { ...out, resent_as: resentAs } : out;
    },
  );

  api.route(
    {
      method: 'get',
      path: '/fax/:id/report',
      summary: "A final job's transmission report: a one-page PDF for the sender's records",
      description:
        'Outcome, pages, every attempt with its times, the destination masked (last four digits), the backend and the SHA-256 of the document sent (cover page included). Available once the job is final (SUCCESS, FAILED or disabled).',
      tags: ['fax'],
      access: { scope: 'fax:read' },
      rateLimit: { bucket: 'fax' },
      params: JobParams,
      errors: ['fax_job_not_found', 'fax_not_final'],
      responses: { 200: { description: 'The report', contentType: 'application/pdf' } },
    },
    async ({ params, res }) => {
      const row = await jobOrNotFound(store, params.id);
      if (!isFinal(row.status)) throw faxErrors.error('fax_not_final', { status: row.status });
      const hash = row.document_sha256 ?? (await storedDocumentHash(deps, row));
      const pdf = await renderTransmissionReport(row, await store.attempts.list(row.id), hash, config.get('FAX_PAPER_SIZE'));
      res.setHeader('Content-Type', 'application/pdf');
      res.setHeader('Content-Disposition', `attachment; filename="fax-${row.id}-report.pdf"`);
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).end(pdf);
      deps.audit.record('report_served', { job_id: row.id, by: actorOf(res) });
    },
  );

  api.route(
    {
      method: 'get',
      path: '/fax/:id/pdf',
      accessNote: 'a `?token=` (PDF_TOKEN_TTL_MINUTES)',
      summary: "The job's original PDF, by short-lived token (for cloud providers to fetch)",
      tags: ['fax'],
      access: 'public',
      params: JobParams,
      query: z.object({ token: z.string().max(200).optional() }),
      errors: ['token_invalid', ...JOB_PDF_ERRORS],
      responses: { 200: { description: 'The PDF', contentType: 'application/pdf' } },
    },
    async ({ params, query, res }) => {
      const row = await jobOrNotFound(store, params.id);
      if (!deps.tokens.verify(FAX_TOKEN_SCOPE, row.id, query.token)) throw faxErrors.error('token_invalid');
      assertDocumentStored(row);
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
      errors: ['fax_job_not_found', 'fax_never_sent', 'fax_not_yet_sent'],
      responses: { 200: { description: 'The job after the poll', schema: FaxJobOutSchema } },
    },
    async ({ params, res }) => {
      const row = await jobOrNotFound(store, params.id);
      if (row.status === 'disabled') throw faxErrors.error('fax_never_sent');
      if (row.dispatch_state === 'pending') throw faxErrors.error('fax_not_yet_sent');
      deps.audit.record('job_refresh_requested', { job_id: row.id, backend: row.backend, by: actorOf(res) });
      await deps.reconciler.check(row);
      return toFaxJobOut((await store.get(row.id))!);
    },
  );
}

/** SHA-256 of a job stored before the hash was kept, read from storage; null once cleanup removed it. */
async function storedDocumentHash(deps: FaxRouteDeps, row: { pdf_key: string; artifacts_removed_at: string | null }): Promise<string | null> {
  if (row.artifacts_removed_at) return null;
  return deps.documents
    .withStorage(async (storage) => createHash('sha256').update(await storage.get(row.pdf_key)).digest('hex'))
    .catch(() => null);
}
