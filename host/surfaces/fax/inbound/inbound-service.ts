import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { FaxConfig } from '../fax-settings.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { StorageProvider } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { detectDocumentType, InvalidDocumentError, type DocumentPool } from '../documents/index.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import type { InboundRow, InboundStore } from './inbound-store.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';

export interface InboundNotice {
  /** The id of the plugin that received it. */
  provider: string;
  providerId: string;
  from?: string | undefined;
  to?: string | undefined;
  status: string;
  pages?: number | undefined;
  /** Loads the document (download or spool read); called only for a new fax. */
  document: () => Promise<Buffer>;
}

/** Every artifact of an inbound fax lives under this prefix. */
export const inboundPrefix = (id: string) => `inbound/${id}`;
export const INBOUND_TOKEN_SCOPE = 'inbound';

/**
 * Receives inbound faxes: idempotent on (provider, provider id), the document converted to a
 * PDF (TIFF pages through sharp) and written to storage before the row, so no row lacks its file.
 */
export class InboundService {
  constructor(
    private readonly deps: { store: InboundStore; kernel: Kernel; config: FaxConfig; audit: AuditLog; logger: Logger; documentPool: DocumentPool; mailboxOf: (calledNumber: string | undefined) => Promise<string>; onReceived?: (row: InboundRow) => Promise<void> },
  ) {}

  withStorage<T>(fn: (storage: StorageProvider) => Promise<T>): Promise<T> {
    return this.deps.kernel.withProvider('storage', this.deps.config.get('STORAGE_BACKEND'), fn);
  }

  /** The stored record and whether it was already there (a replay). */
  async receive(notice: InboundNotice): Promise<{ row: InboundRow; duplicate: boolean }> {
    const existing = await this.deps.store.byProviderId(notice.provider, notice.providerId);
    if (existing) return { row: existing, duplicate: true };
    const bytes = await notice.document();
    const { pdf, pages, sourceType } = await this.toPdf(bytes);
    const id = randomUUID();
    const pdfKey = `${inboundPrefix(id)}/fax.pdf`;
    await this.withStorage((s) => s.put(pdfKey, pdf));
    const now = new Date();
    const mailbox = await this.deps.mailboxOf(notice.to);
    const row: InboundRow = {
      id,
      provider: notice.provider,
      provider_id: notice.providerId,
      from_number: notice.from ?? null,
      to_number: notice.to ?? null,
      status: notice.status,
      pages,
      pdf_key: pdfKey,
      received_at: now.toISOString(),
      created_at: now.getTime(),
      source_type: sourceType,
      size_bytes: bytes.length,
      mailbox,
      deleted_at: null,
      deleted_by: null,
      // inbound.received is owed until the publisher clears this.
      event_pending: 1,
    };
    let inserted = false;
    try {
      inserted = await this.deps.store.insert(row);
    } finally {
      if (!inserted) await this.withStorage((s) => s.delete(pdfKey)).catch(() => {});
    }
    if (!inserted) {
      // A concurrent delivery of the same fax won the insert.
      const winner = await this.deps.store.byProviderId(notice.provider, notice.providerId);
      if (winner) return { row: winner, duplicate: true };
      throw new Error('inbound fax insert lost without a winner');
    }
    this.deps.audit.record('inbound_received', { inbound_id: id, provider: notice.provider, from: notice.from, to: notice.to, pages, status: notice.status, source_type: sourceType, mailbox });
    this.deps.logger.info({ inbound_id: id, provider: notice.provider, to: maskPhone(notice.to), pages }, 'inbound fax stored');
    await this.deps.onReceived?.(row);
    return { row, duplicate: false };
  }

  private async toPdf(bytes: Buffer): Promise<{ pdf: Buffer; pages: number; sourceType: 'pdf' | 'tiff' }> {
    const type = detectDocumentType(bytes.subarray(0, 8192));
    try {
      if (type === 'pdf') return { pdf: bytes, pages: (await this.deps.documentPool.inspectPdf(bytes)).pages, sourceType: 'pdf' };
      if (type === 'tiff') return { ...(await this.deps.documentPool.imageToPdf(bytes, this.deps.config.get('FAX_PAPER_SIZE'))), sourceType: 'tiff' };
    } catch (err) {
      if (err instanceof InvalidDocumentError) throw invalidInput('document', err.message);
      throw err;
    }
    throw invalidInput('document', 'an inbound fax must be a PDF or a TIFF');
  }
}
