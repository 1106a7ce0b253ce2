import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ConfigRegistry } from '../../../platform/config/registry.js';
import { PluginNotAvailableError, type Kernel } from '../../../../core/kernel/kernel.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { maskNumbers } from '../../../../core/sdk/index.js';
import { normalizeToPdf } from '../documents/index.js';
import { jobPrefix, type JobDocuments } from './job-documents.js';
import type { FaxJobRow, FaxJobStore } from './job-store.js';
import { normalizePhone, PHONE_RULE } from './phone.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import { httpError, invalid } from '../../../platform/http/error-catalogue.js';

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

/**
 * Outbound fax submission: validates and stores a submission (PDF in storage first, then the
 * row, so a row never lacks its file). The documents of stored jobs are JobDocuments' work.
 */
export class FaxService {
  constructor(
    private readonly deps: {
      store: FaxJobStore;
      kernel: Kernel;
      config: ConfigRegistry;
      documents: JobDocuments;
      audit: AuditLog;
      logger: Logger;
      onSubmitted: () => void;
    },
  ) {}

  /** Why new jobs cannot be sent now, or undefined when the selected backend is active. */
  backendProblem(): string | undefined {
    const backend = this.deps.config.get('FAX_BACKEND');
    const state = this.deps.kernel.stateOf(backend);
    if (state === 'unknown') return `fax backend "${backend}" (FAX_BACKEND) is not installed`;
    if (!this.deps.kernel.isActive('fax', backend)) return `fax backend "${backend}" (FAX_BACKEND) is not active (state: ${state})`;
    if (!this.deps.kernel.servesFax(backend, 'outbound')) return `fax backend "${backend}" (FAX_BACKEND) serves inbound only: its outbound settings are not set`;
    return undefined;
  }

  async submit(input: { to: unknown; bytes: Buffer; size: number }): Promise<FaxJobRow> {
    const to = normalizePhone(input.to);
    if (!to) throw invalid('to', PHONE_RULE, 400);
    const disabled = this.deps.config.get('FAX_DISABLED');
    const backend = this.deps.config.get('FAX_BACKEND');
    if (!disabled) {
      const problem = this.backendProblem();
      if (problem) throw httpError('fax_backend_unavailable', { problem });
    }
    // a document we cannot use throws Invalid/UnsupportedDocumentError: the error handler's domain mapping answers 400/415
    const normalized = await normalizeToPdf(input.bytes, { paper: this.deps.config.get('FAX_PAPER_SIZE') });
    const id = randomUUID();
    const pdfKey = `${jobPrefix(id)}/document.pdf`;
    const { documents } = this.deps;
    await documents.withStorage((s) => s.put(pdfKey, normalized.pdf)).catch((err) => {
      if (err instanceof PluginNotAvailableError) throw httpError('storage_unavailable', { storageId: documents.storageId, reason: err.message });
      throw err;
    });
    let row: FaxJobRow;
    try {
      row = await this.deps.store.insert({ id, to, backend, pdfKey, pages: normalized.pages, sourceType: normalized.sourceType, sizeBytes: input.size, disabled });
    } catch (err) {
      await documents.withStorage((s) => s.delete(pdfKey)).catch(() => {});
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
