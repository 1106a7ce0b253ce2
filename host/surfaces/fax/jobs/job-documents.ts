import type { FaxConfig } from '../fax-settings.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { FaxDocument, StorageProvider } from '../../../../core/sdk/index.js';
import { publicBaseUrl } from '../../../platform/http/public-url.js';
import { createFaxDocument } from '../documents/index.js';
import type { DocumentTokens } from './document-tokens.js';
import type { FaxJobRow } from './job-store.js';

export const FAX_TOKEN_SCOPE = 'fax';

/** The job's artifacts live under one prefix, so removing a job removes all of them. */
export const jobPrefix = (id: string) => `fax/${id}`;

/**
 * A job's documents as the rest of the host needs them: the storage they live in, the
 * tokenized URL a provider downloads the PDF from, and the FaxDocument a provider sees.
 */
export class JobDocuments {
  constructor(private readonly deps: { kernel: Kernel; config: FaxConfig; tokens: DocumentTokens }) {}

  get storageId(): string {
    return this.deps.config.get('STORAGE_BACKEND');
  }

  withStorage<T>(fn: (storage: StorageProvider) => Promise<T>): Promise<T> {
    return this.deps.kernel.withProvider('storage', this.storageId, fn);
  }

  documentUrl(jobId: string): string {
    const ttl = this.deps.config.get('PDF_TOKEN_TTL_MINUTES') * 60_000;
    return `${publicBaseUrl(this.deps.config)}/fax/${encodeURIComponent(jobId)}/pdf?token=${this.deps.tokens.issue(FAX_TOKEN_SCOPE, jobId, ttl)}`;
  }

  /** The FaxDocument a provider sees, backed by `storage` (the caller holds its lease). */
  documentFor(row: FaxJobRow, storage: StorageProvider): FaxDocument {
    return createFaxDocument({
      jobId: row.id,
      pdfKey: row.pdf_key,
      url: this.documentUrl(row.id),
      pages: row.pages ?? 0,
      storage,
      paper: this.deps.config.get('FAX_PAPER_SIZE'),
      gsTimeoutMs: this.deps.config.get('GS_TIMEOUT_SECONDS') * 1000,
    });
  }
}
