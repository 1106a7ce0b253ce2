import type { Kysely } from 'kysely';
import type { StorageProvider } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { removeStoredPrefix } from '../documents/stored-media.js';
import { faxErrors } from '../fax-errors.js';
import type { FaxTables } from '../fax-tables.js';
import { inboundPrefix } from '../inbound/inbound-service.js';
import { jobPrefix } from '../jobs/job-documents.js';
import { isFinal } from '../jobs/job-states.js';
import type { FaxJobRow } from '../jobs/job-store.js';
import type { InboundRow } from '../inbound/inbound-store.js';

/**
 * Deletion on demand: a job's document or an inbound fax's media is removed from storage (every
 * file under its prefix, local or S3 alike through the storage plugin), the row stays as a
 * tombstone with when and by whom, and the deletion is audited. The tombstone is written
 * first: a storage failure leaves media the orphan sweep removes, never a served document.
 */
export class MediaDeletion {
  constructor(private readonly deps: { db: Kysely<FaxTables>; withStorage: <T>(fn: (storage: StorageProvider) => Promise<T>) => Promise<T>; audit: AuditLog }) {}

  /**
   * A job of a batch shares the batch's one document: deleting it deletes the batch's document,
   * and every job of the batch is tombstoned (each answers 410). Refused while any of them may
   * still send it.
   */
  async deleteJobDocument(row: FaxJobRow, by: string): Promise<void> {
    const { db } = this.deps;
    const rows = row.batch_id ? await db.selectFrom('fax_jobs').selectAll().where('batch_id', '=', row.batch_id).execute() : [row];
    const sending = rows.find((r) => !isFinal(r.status));
    if (sending) throw faxErrors.error('fax_document_in_use', { status: sending.id === row.id ? sending.status : `${sending.status}, job ${sending.id} of its batch` });
    const now = new Date().toISOString();
    for (const r of rows) {
      await db
        .updateTable('fax_jobs')
        .set({ document_deleted_at: r.document_deleted_at ?? now, document_deleted_by: r.document_deleted_by ?? by, artifacts_removed_at: r.artifacts_removed_at ?? now })
        .where('id', '=', r.id)
        .execute();
    }
    const prefixes = [...rows.map((r) => jobPrefix(r.id)), ...(row.batch_id ? [jobPrefix(row.batch_id)] : [])];
    let files = 0;
    for (const prefix of prefixes) files += await this.deps.withStorage((s) => removeStoredPrefix(s, `${prefix}/`));
    this.deps.audit.record('job_document_deleted', { job_id: row.id, files, by, ...(row.batch_id ? { batch_id: row.batch_id, jobs: rows.length } : {}) });
  }

  async deleteInbound(row: InboundRow, by: string): Promise<void> {
    await this.deps.db
      .updateTable('inbound_faxes')
      .set({ deleted_at: row.deleted_at ?? new Date().toISOString(), deleted_by: row.deleted_by ?? by, pdf_key: null })
      .where('id', '=', row.id)
      .execute();
    const files = await this.deps.withStorage((s) => removeStoredPrefix(s, `${inboundPrefix(row.id)}/`));
    this.deps.audit.record('inbound_deleted', { inbound_id: row.id, files, by });
  }
}
