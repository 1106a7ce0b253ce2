import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ConfigRegistry } from '../config/registry.js';
import { PluginNotAvailableError, type Kernel } from '../../core/kernel/kernel.js';
import { maskNumbers, type FaxDocument, type StorageProvider } from '../../core/sdk/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import { HttpError } from '../http/errors.js';
import { createFaxDocument, normalizeToPdf, InvalidDocumentError, UnsupportedDocumentError } from './documents/index.js';
import type { DocumentTokens } from './document-tokens.js';
import type { FaxJobRow, FaxJobStore } from './job-store.js';
import { maskPhone, normalizePhone, PHONE_RULE } from './phone.js';

export interface FaxJobOut {
  id: string;
  to: string;
  status: string;
  error?: string;
  pages?: number;
  backend: string;
  provider_sid?: string;
  created_at: string;
  updated_at: string;
}

export const FAX_TOKEN_SCOPE = 'fax';

/** The job's artifacts live under one prefix, so removing a job removes all of them. */
export const jobPrefix = (id: string) => `fax/${id}`;

/**
 * Outbound faxes: validates and stores a submission (PDF in storage first, then the row, so a
 * row never lacks its file), and gives the pieces dispatch needs (document, URLs).
 */
export class FaxService {
  constructor(
    private readonly deps: {
      store: FaxJobStore;
      kernel: Kernel;
      config: ConfigRegistry;
      tokens: DocumentTokens;
      audit: AuditLog;
      logger: Logger;
      onSubmitted: () => void;
    },
  ) {}

  get storageId(): string {
    return this.deps.config.get('STORAGE_BACKEND');
  }

  /** PUBLIC_API_URL without a trailing slash; the base of document and callback URLs. */
  publicBaseUrl(): string {
    const configured = this.deps.config.get('PUBLIC_API_URL');
    return (configured ?? `http://localhost:${this.deps.config.get('PORT')}`).replace(/\/+$/, '');
  }

  documentUrl(jobId: string): string {
    const ttl = this.deps.config.get('PDF_TOKEN_TTL_MINUTES') * 60_000;
    return `${this.publicBaseUrl()}/fax/${encodeURIComponent(jobId)}/pdf?token=${this.deps.tokens.issue(FAX_TOKEN_SCOPE, jobId, ttl)}`;
  }

  /** Why new jobs cannot be sent now, or undefined when the selected backend is active. */
  backendProblem(): string | undefined {
    const backend = this.deps.config.get('FAX_BACKEND');
    const state = this.deps.kernel.stateOf(backend);
    if (state === 'unknown') return `fax backend "${backend}" (FAX_BACKEND) is not installed`;
    if (!this.deps.kernel.isActive('fax', backend)) return `fax backend "${backend}" (FAX_BACKEND) is not active (state: ${state})`;
    return undefined;
  }

  async submit(input: { to: unknown; filePath: string; size: number }): Promise<FaxJobRow> {
    const to = normalizePhone(input.to);
    if (!to) throw new HttpError(400, `to: ${PHONE_RULE}`);
    const disabled = this.deps.config.get('FAX_DISABLED');
    const backend = this.deps.config.get('FAX_BACKEND');
    if (!disabled) {
      const problem = this.backendProblem();
      if (problem) throw new HttpError(503, problem);
    }
    const bytes = await readFile(input.filePath);
    let normalized;
    try {
      normalized = await normalizeToPdf(bytes, { paper: this.deps.config.get('FAX_PAPER_SIZE') });
    } catch (err) {
      if (err instanceof UnsupportedDocumentError) throw new HttpError(415, err.message);
      if (err instanceof InvalidDocumentError) throw new HttpError(400, err.message);
      throw err;
    }
    const id = randomUUID();
    const pdfKey = `${jobPrefix(id)}/document.pdf`;
    await this.withStorage((s) => s.put(pdfKey, normalized.pdf)).catch((err) => {
      if (err instanceof PluginNotAvailableError) throw new HttpError(503, `storage backend "${this.storageId}" (STORAGE_BACKEND) is not available: ${err.message}`);
      throw err;
    });
    let row: FaxJobRow;
    try {
      row = await this.deps.store.insert({ id, to, backend, pdfKey, pages: normalized.pages, sourceType: normalized.sourceType, sizeBytes: input.size, disabled });
    } catch (err) {
      await this.withStorage((s) => s.delete(pdfKey)).catch(() => {});
      throw err;
    }
    this.deps.audit.record('job_created', { job_id: id, to, backend, pages: normalized.pages, source_type: normalized.sourceType, status: row.status });
    this.deps.logger.info({ job_id: id, to: maskPhone(to), backend, status: row.status }, 'fax job created');
    if (!disabled) this.deps.onSubmitted();
    return row;
  }

  get(id: string): Promise<FaxJobRow | undefined> {
    return this.deps.store.get(id);
  }

  withStorage<T>(fn: (storage: StorageProvider) => Promise<T>): Promise<T> {
    return this.deps.kernel.withProvider('storage', this.storageId, fn);
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

  tmpDir(dataDir: string): string {
    return path.join(dataDir, 'tmp');
  }
}

export function toFaxJobOut(row: FaxJobRow): FaxJobOut {
  return {
    id: row.id,
    to: row.to_number,
    status: row.status,
    ...(row.error ? { error: maskNumbers(row.error) } : {}),
    ...(row.pages !== null && row.pages !== undefined ? { pages: row.pages } : {}),
    backend: row.backend,
    ...(row.provider_sid ? { provider_sid: row.provider_sid } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
