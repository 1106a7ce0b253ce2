import { z } from 'zod';
import type { FaxJobRow, FaxJobStore } from './job-store.js';
import { faxErrors } from '../fax-errors.js';

/** One send of a fax job, as GET /fax/{id} and the admin job detail show it. */
export const FaxAttemptSchema = z.object({
  attempt: z.number().int().describe('1 for the first send'),
  started_at: z.string().describe('ISO 8601'),
  ended_at: z.string().optional().describe('ISO 8601; absent while under way'),
  outcome: z.enum(['SUCCESS', 'FAILED', 'not_accepted']).optional().describe('absent while under way (or while an uncertain send is looked up)'),
  line_failure: z.enum(['busy', 'no_answer', 'line_failure']).optional().describe('The line failed: the job is redialled while its retry policy allows'),
  error: z.string().optional(),
  provider_sid: z.string().optional(),
});

/** Faxbot's FaxJobOut, with `attempts` added. */
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
  send_at: z.string().optional().describe('ISO 8601: a scheduled job waits in `queued` until then'),
  resend_of: z.string().optional().describe('The job this one resends (POST /fax/{id}/resend)'),
  resent_as: z.array(z.string()).optional().describe('GET /fax/{id}: the jobs made by resending this one'),
  batch_id: z.string().optional().describe('The batch the job belongs to (a POST /fax with several `to`): GET /fax/batches/{id}'),
  attempts: z
    .array(FaxAttemptSchema)
    .optional()
    .describe('Every send of the job, oldest first (an addition to the Faxbot shape)'),
});

/** A batch of POST /fax (several `to`): one job per number, sharing one stored document. */
export const FaxBatchOutSchema = z.object({
  batch_id: z.string(),
  pages: z.number().int().describe('Pages of the shared document (cover page included)'),
  created_at: z.string().describe('ISO 8601'),
  send_at: z.string().optional().describe('ISO 8601: every job of a scheduled batch waits in `queued` until then'),
  jobs: z.array(FaxJobOutSchema).describe('One job per recipient, in the order of the `to` fields; each can be read, canceled and resent as any job'),
});

/** The refusals of a route serving a job's stored PDF: no such job, its document removed or lost, the storage plugin down. */
export const JOB_PDF_ERRORS = ['fax_job_not_found', 'document_expired', 'document_deleted', 'plugin_not_available'];

/** Throws when the job's document is gone: 410 `document_deleted` on request, 404 `document_expired` by the cleanup. */
export function assertDocumentStored(row: Pick<FaxJobRow, 'artifacts_removed_at' | 'document_deleted_at'>): void {
  if (row.document_deleted_at) throw faxErrors.error('document_deleted');
  if (row.artifacts_removed_at) throw faxErrors.error('document_expired');
}

/** What a lookup of the job `id` found, or the 404 `fax_job_not_found`. */
export function foundOrNotFound<T>(found: T | undefined, id: string): T {
  if (found === undefined) throw faxErrors.error('fax_job_not_found', { id });
  return found;
}

/** The job a route names by its id, or the 404 `fax_job_not_found`. */
export async function jobOrNotFound(store: Pick<FaxJobStore, 'get'>, id: string): Promise<FaxJobRow> {
  return foundOrNotFound(await store.get(id), id);
}
