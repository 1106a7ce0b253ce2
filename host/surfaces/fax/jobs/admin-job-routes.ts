import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { decodeCursor, encodeCursor, PageQuery } from '../../../platform/http/cursor.js';
import { sendStoredPdf } from '../../../platform/http/stored-pdf.js';
import type { JobDocuments } from './job-documents.js';
import type { FaxJobRow, FaxJobStore } from './job-store.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import { maskNumbers } from '../../../../core/sdk/index.js';
import { principalOf } from '../../../platform/auth/access-guard.js';
import { assertDocumentStored, FaxAttemptSchema, jobOrNotFound, JOB_PDF_ERRORS } from './fax-job-out.js';
import { toAttemptsOut } from './fax-service.js';
import { faxErrors } from '../fax-errors.js';

const ADMIN = { scope: 'admin', administrative: true } as const;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const AdminJobSummary = z.object({
  id: z.string(),
  to: z.string().describe('Masked: last four digits'),
  status: z.string(),
  error: z.string().nullable(),
  pages: z.number().int().nullable(),
  backend: z.string(),
  provider_sid: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const AdminJobDetail = AdminJobSummary.extend({
  source_type: z.string().describe('pdf | text | png | jpeg | tiff: what was uploaded'),
  size_bytes: z.number().int(),
  dispatch_state: z.string().describe('pending | sending | accepted | uncertain | done'),
  attempts: z.number().int(),
  next_attempt_at: z.string().nullable(),
  lease_owner: z.string().nullable(),
  lease_until: z.string().nullable(),
  sent_at: z.string().nullable(),
  last_checked_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  artifacts_removed_at: z.string().nullable().describe('Set when cleanup removed the PDF (ARTIFACT_TTL_DAYS)'),
  pdf_available: z.boolean(),
  cover_page: z.boolean().describe('A cover page was prepended (counted in pages)'),
  document_sha256: z.string().nullable().describe('SHA-256 of the document sent (null for jobs stored before it was kept)'),
  retry_policy: z.object({ max_attempts: z.number().int().nullable(), delay_seconds: z.number().int().nullable() }).describe("The job's own redial policy; null follows FAX_RETRY_MAX_ATTEMPTS / FAX_RETRY_DELAY_SECONDS"),
  attempt_history: z.array(FaxAttemptSchema).describe('Every send, oldest first (`attempts` is their count)'),
});
const ListQuery = z.object({
  status: z.enum(['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled']).optional(),
  backend: z.string().max(64).optional(),
  since: z.iso.datetime({ offset: true }).optional().describe('created_at >= since (ISO 8601)'),
  until: z.iso.datetime({ offset: true }).optional().describe('created_at < until (ISO 8601)'),
  ...PageQuery,
});
const JobParams = z.object({ id: z.string().min(1).max(100) });
export const FaxActivity = z
  .object({
    since: z.string().describe('Start of the first hour (ISO 8601, UTC)'),
    bucket_seconds: z.literal(3600),
    buckets: z
      .array(
        z.object({
          start: z.string().describe('Start of the hour (ISO 8601, UTC)'),
          sent: z.number().int().describe('Jobs created in this hour that are SUCCESS now'),
          failed: z.number().int().describe('... FAILED now'),
          queued: z.number().int().describe('... queued or in_progress now'),
          other: z.number().int().describe('... in any other status (disabled)'),
        }),
      )
      .describe('One per hour, oldest first, empty hours included'),
    totals: z.object({ sent: z.number().int(), failed: z.number().int(), queued: z.number().int(), other: z.number().int() }),
  })
  .meta({ id: 'FaxActivity' });
const ActivityQuery = z.object({ hours: z.coerce.number().int().min(1).max(168).default(24).describe('How many hours back, the current one included (1 to 168)') }).strict();
type Tally = { sent: number; failed: number; queued: number; other: number };

function tallyKey(status: string): keyof Tally {
  if (status === 'SUCCESS') return 'sent';
  if (status === 'FAILED') return 'failed';
  if (status === 'queued' || status === 'in_progress') return 'queued';
  return 'other';
}

function summary(row: FaxJobRow): z.infer<typeof AdminJobSummary> {
  return {
    id: row.id,
    to: maskPhone(row.to_number),
    status: row.status,
    // Rows stored before errors were masked at write still show no number here.
    error: row.error === null ? null : maskNumbers(row.error),
    pages: row.pages,
    backend: row.backend,
    provider_sid: row.provider_sid,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** GET /admin/fax-jobs, /admin/fax-jobs/:id and its PDF. Numbers are masked in every view. */
export function registerAdminJobRoutes(api: HttpApi, deps: { store: FaxJobStore; documents: JobDocuments; audit: AuditLog }): void {
  const { store } = deps;

  const routes = api.group({ tags: ['admin', 'fax'], access: ADMIN });

  routes.route(
    {
      method: 'get',
      path: '/admin/fax-jobs',
      summary: 'Fax jobs, newest first, filterable; numbers masked',
      mcp: { name: 'list_faxes', description: 'Sent fax jobs, newest first, numbers masked' },
      query: ListQuery,
      responses: {
        200: { description: 'A page of jobs', schema: z.object({ jobs: z.array(AdminJobSummary), next_cursor: z.string().nullable() }) },
      },
    },
    async ({ query }) => {
      const cursor = decodeCursor<string>(query.cursor, 'string');
      const since = query.since ? new Date(query.since).toISOString() : undefined;
      const until = query.until ? new Date(query.until).toISOString() : undefined;
      const rows = await store.list(
        { ...(query.status ? { status: query.status } : {}), ...(query.backend ? { backend: query.backend } : {}), ...(since ? { since } : {}), ...(until ? { until } : {}) },
        query.limit + 1,
        cursor ? { createdAt: cursor.created, id: cursor.id } : undefined,
      );
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return { jobs: page.map(summary), next_cursor: rows.length > query.limit && last ? encodeCursor(last.created_at, last.id) : null };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/fax-activity',
      summary: 'Fax jobs of the last hours, counted per hour by their status now (sent, failed, queued)',
      description: 'Hours are UTC; a job counts in the hour it was created. The console draws it as the overview chart.',
      query: ActivityQuery,
      responses: { 200: { description: 'Hourly counts', schema: FaxActivity } },
    },
    async ({ query }) => {
      const hourMs = 3600_000;
      const first = Math.floor(Date.now() / hourMs) * hourMs - (query.hours - 1) * hourMs;
      const since = new Date(first).toISOString();
      const buckets = Array.from({ length: query.hours }, (_, i) => ({ start: new Date(first + i * hourMs).toISOString(), sent: 0, failed: 0, queued: 0, other: 0 }));
      const byHour = new Map(buckets.map((b) => [b.start.slice(0, 13), b]));
      const totals: Tally = { sent: 0, failed: 0, queued: 0, other: 0 };
      for (const row of await store.countByHour(since)) {
        const bucket = byHour.get(row.hour);
        if (!bucket) continue;
        const key = tallyKey(row.status);
        bucket[key] += row.n;
        totals[key] += row.n;
      }
      return { since, bucket_seconds: 3600 as const, buckets, totals };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/fax-jobs/:id',
      summary: 'A fax job as operators see it: dispatch state, attempts, provider id, timestamps; number masked',
      params: JobParams,
      errors: ['fax_job_not_found'],
      responses: { 200: { description: 'The job', schema: AdminJobDetail } },
    },
    async ({ params }) => {
      const row = await jobOrNotFound(store, params.id);
      return {
        ...summary(row),
        source_type: row.source_type,
        size_bytes: row.size_bytes,
        dispatch_state: row.dispatch_state,
        attempts: row.attempts,
        next_attempt_at: row.dispatch_state === 'done' ? null : iso(row.next_attempt_at),
        lease_owner: row.lease_owner,
        lease_until: iso(row.lease_until),
        sent_at: iso(row.sent_at),
        last_checked_at: iso(row.last_checked_at),
        finished_at: row.finished_at,
        artifacts_removed_at: row.artifacts_removed_at,
        pdf_available: !row.artifacts_removed_at,
        cover_page: row.cover_page === 1,
        document_sha256: row.document_sha256,
        retry_policy: { max_attempts: row.retry_max_attempts, delay_seconds: row.retry_delay_seconds },
        attempt_history: toAttemptsOut(await store.attempts.list(row.id)),
      };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/fax-jobs/:id/pdf',
      summary: "Download the job's outbound PDF",
      params: JobParams,
      errors: JOB_PDF_ERRORS,
      responses: { 200: { description: 'The PDF', contentType: 'application/pdf' } },
    },
    async ({ params, res }) => {
      const row = await jobOrNotFound(store, params.id);
      assertDocumentStored(row);
      await deps.documents.withStorage((storage) => sendStoredPdf(storage, row.pdf_key, res, { filename: `fax-${row.id}.pdf`, disposition: 'attachment' }));
      deps.audit.record('admin_pdf_served', { job_id: row.id, by: principalOf(res).keyId ?? principalOf(res).kind });
    },
  );
}
