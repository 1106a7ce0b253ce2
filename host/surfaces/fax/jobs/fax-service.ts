import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { FaxConfig } from '../fax-settings.js';
import { PluginNotAvailableError, type Kernel } from '../../../../core/kernel/kernel.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { maskNumbers } from '../../../../core/sdk/index.js';
import type { CoverFields, DocumentPool } from '../documents/index.js';
import type { IdempotencyKeys, IdempotentSubmit } from './idempotency-keys.js';
import type { FaxJobAttemptRow } from './job-attempts.js';
import { jobPrefix, type JobDocuments } from './job-documents.js';
import type { FaxJobRow, FaxJobStore, NewFaxJob } from './job-store.js';
import type { SubmitGroupCommit } from './submit-group-commit.js';
import { normalizePhone, PHONE_RULE } from './phone.js';
import { maskPhone } from '../../../platform/logging/text-masking.js';
import { faxErrors } from '../fax-errors.js';
import { assertDocumentStored } from './fax-job-out.js';
import { malformedInput } from '../../../platform/errors/platform-errors.js';

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
  send_at?: string;
  resend_of?: string;
  resent_as?: string[];
  batch_id?: string;
  /** Additive to Faxbot's shape: every send of the job, oldest first. */
  attempts?: FaxAttemptOut[];
}

export interface FaxAttemptOut {
  attempt: number;
  started_at: string;
  ended_at?: string;
  /** SUCCESS | FAILED | not_accepted; absent while under way. */
  outcome?: string;
  /** busy | no_answer | line_failure: the line failed, and the job may be redialled. */
  line_failure?: string;
  error?: string;
  provider_sid?: string;
}

/** What a submit asks for beyond the number and the document. */
export interface SubmitOptions {
  cover?: CoverFields | undefined;
  /** Per-job overrides of FAX_RETRY_MAX_ATTEMPTS and FAX_RETRY_DELAY_SECONDS. */
  retry?: { maxAttempts?: number | undefined; delaySeconds?: number | undefined } | undefined;
  /** Idempotency-Key and the caller it belongs to. */
  idempotency?: { scope: string; key: string } | undefined;
  /** Where the job's status events are POSTed, and whether they show the number in full (the submitter holds fax:read). */
  callback?: { url: string; fullNumbers: boolean } | undefined;
  /** The API key id (or caller kind) submitting. */
  submittedBy?: string | undefined;
  /** A scheduled send: not before this time (checked against FAX_SCHEDULE_HORIZON_DAYS by the route). */
  sendAt?: Date | undefined;
}

/** One uploaded file of a submit. */
export interface SubmitDocument {
  bytes: Buffer;
  size: number;
}

/** A submit's document as stored: merged, covered, counted. */
interface PreparedDocument {
  pdf: Buffer;
  pages: number;
  /** The uploads' types, distinct, joined by "+" (pdf, text+pdf). */
  sourceType: string;
  /** The uploads' bytes together. */
  sizeBytes: number;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * Outbound fax submission: validates and stores a submission (PDF in storage first, then the
 * row, so a row never lacks its file). The documents of stored jobs are JobDocuments' work.
 */
export class FaxService {
  constructor(
    private readonly deps: {
      store: FaxJobStore;
      kernel: Kernel;
      config: FaxConfig;
      documents: JobDocuments;
      /** Inspects and converts the upload off the event loop, within its budget. */
      documentPool: DocumentPool;
      audit: AuditLog;
      logger: Logger;
      idempotencyKeys: IdempotencyKeys;
      groupCommit: SubmitGroupCommit;
      onSubmitted: () => void;
      /** The job's first status event (fax.queued). */
      onQueued?: (row: FaxJobRow) => Promise<void>;
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

  /**
   * Stores a new job, or answers the job an earlier submit with the same Idempotency-Key made
   * (`replayed`: nothing new is stored or sent). A key reused for another fax throws 422.
   * Several documents are merged in order into one (the cover page first).
   */
  async submit(input: { to: unknown; documents: SubmitDocument[] }, options: SubmitOptions = {}): Promise<{ row: FaxJobRow; replayed: boolean }> {
    const to = normalizePhone(input.to);
    if (!to) throw malformedInput('to', PHONE_RULE);
    const idempotent = options.idempotency && this.idempotentSubmit(options.idempotency, input.documents, to, options);
    if (idempotent) {
      const earlier = await this.replay(idempotent);
      if (earlier) return { row: earlier, replayed: true };
    }
    const { disabled, backend } = this.sendingBackend();
    const document = await this.prepareDocument(input.documents, options.cover, to);
    const id = randomUUID();
    const pdfKey = `${jobPrefix(id)}/document.pdf`;
    const { documents, groupCommit } = this.deps;
    const job: NewFaxJob = { ...this.newJob(document, options, disabled), id, to, backend, pdfKey };
    let row: FaxJobRow | undefined;
    if (!idempotent && groupCommit.enabled) {
      // Document and row stored with concurrent submits' (FAX_GROUP_COMMIT_MS), as durable as alone.
      row = await groupCommit.submit(job, document.pdf).catch(this.storageError);
    } else {
      await documents.withStorage((s) => s.put(pdfKey, document.pdf)).catch(this.storageError);
      row = (await this.insertAlone([job], pdfKey, idempotent))?.[0];
    }
    if (!row) {
      // A concurrent submit with the same key won: answer its job, keep nothing of ours.
      await documents.withStorage((s) => s.delete(pdfKey)).catch(() => {});
      const earlier = idempotent && (await this.replay(idempotent));
      if (!earlier) throw new Error('idempotency key claimed by a submit whose job cannot be found');
      return { row: earlier, replayed: true };
    }
    await this.created([row], document.sourceType, !!options.cover);
    return { row, replayed: false };
  }

  /**
   * A batch: one job per number, sharing ONE stored document under the batch's prefix
   * (`fax/<batch id>/document.pdf`, every job's pdf_key). The document is stored first, then
   * every row with one INSERT (with the Idempotency-Key's claim, one transaction): never a job
   * without its document, nor part of a batch. Batches take the non-grouped path. A replay of
   * the key answers the same batch.
   */
  async submitBatch(input: { to: unknown[]; documents: SubmitDocument[] }, options: SubmitOptions = {}): Promise<{ batchId: string; rows: FaxJobRow[]; replayed: boolean }> {
    const numbers = input.to.map((value, i) => {
      const to = normalizePhone(value);
      if (!to) throw malformedInput(`to[${i}]`, PHONE_RULE);
      return to;
    });
    const digits = numbers.map((to) => to.replace(/\D/g, ''));
    const twice = digits.findIndex((d, i) => digits.indexOf(d) !== i);
    if (twice >= 0) throw malformedInput(`to[${twice}]`, 'each number once per batch');
    const idempotent = options.idempotency && this.idempotentSubmit(options.idempotency, input.documents, numbers.join(','), options);
    const replayBatch = async () => {
      const earlier = idempotent && (await this.replay(idempotent));
      return earlier?.batch_id ? { batchId: earlier.batch_id, rows: await this.deps.store.batchJobs(earlier.batch_id), replayed: true } : undefined;
    };
    if (idempotent) {
      const earlier = await replayBatch();
      if (earlier) return earlier;
    }
    const { disabled, backend } = this.sendingBackend();
    // One document for every recipient: the cover's "To" is cover_to, or blank.
    const document = await this.prepareDocument(input.documents, options.cover, '');
    const batchId = randomUUID();
    const pdfKey = `${jobPrefix(batchId)}/document.pdf`;
    const shared = this.newJob(document, options, disabled);
    const jobs: NewFaxJob[] = numbers.map((to, index) => ({ ...shared, id: randomUUID(), to, backend, pdfKey, batch: { id: batchId, index } }));
    await this.deps.documents.withStorage((s) => s.put(pdfKey, document.pdf)).catch(this.storageError);
    const rows = await this.insertAlone(jobs, pdfKey, idempotent);
    if (!rows) {
      await this.deps.documents.withStorage((s) => s.delete(pdfKey)).catch(() => {});
      const earlier = await replayBatch();
      if (!earlier) throw new Error('idempotency key claimed by a submit whose batch cannot be found');
      return earlier;
    }
    await this.created(rows, document.sourceType, !!options.cover);
    return { batchId, rows, replayed: false };
  }

  /** What makes a retried submit "the same" (see IdempotencyKeys). */
  private idempotentSubmit(idempotency: { scope: string; key: string }, documents: SubmitDocument[], to: string, options: SubmitOptions): IdempotentSubmit {
    return {
      ...idempotency,
      // One document hashes as before several were taken, so keys stored before still match.
      documentSha256: documents.length === 1 ? sha256(documents[0]!.bytes) : sha256(documents.map((d) => sha256(d.bytes)).join(',')),
      to,
      // Options added later join the list only when set, so keys stored before them still match.
      optionsSha256: sha256(JSON.stringify([options.cover ?? null, options.retry?.maxAttempts ?? null, options.retry?.delaySeconds ?? null, ...(options.callback ? [options.callback.url] : []), ...(options.sendAt ? [options.sendAt.toISOString()] : [])])),
    };
  }

  /** FAX_DISABLED and FAX_BACKEND; throws 503 when the backend cannot send. */
  private sendingBackend(): { disabled: boolean; backend: string } {
    const disabled = this.deps.config.get('FAX_DISABLED');
    if (!disabled) {
      const problem = this.backendProblem();
      if (problem) throw faxErrors.error('fax_backend_unavailable', { problem });
    }
    return { disabled, backend: this.deps.config.get('FAX_BACKEND') };
  }

  /**
   * The job's PDF: each upload normalized (off the event loop), several merged in order, the cover
   * page first when asked. A document we cannot use throws Invalid/UnsupportedDocumentError or
   * document_too_complex: the error handler's domain mapping answers 400/415/422.
   */
  private async prepareDocument(uploads: SubmitDocument[], cover: CoverFields | undefined, coverTo: string): Promise<PreparedDocument> {
    const { config, documentPool } = this.deps;
    const paper = config.get('FAX_PAPER_SIZE');
    const normalized = await Promise.all(uploads.map((u) => documentPool.normalize(u.bytes, paper)));
    let pdf = normalized.length === 1 ? normalized[0]!.pdf : await documentPool.merge(normalized.map((n) => n.pdf));
    let pages = normalized.reduce((n, d) => n + d.pages, 0);
    if (cover) {
      pages += 1;
      const template = config.get('FAX_COVER_TEMPLATE');
      const covered = await documentPool.withCover(pdf, { template, values: { ...cover, to: cover.to ?? coverTo, pages, date: new Date() }, paper });
      // Drawn as boxes and named in the PDF's metadata (UndrawableCharacters); the log says which.
      if (covered.undrawable.length) this.deps.logger.warn({ characters: covered.undrawable.join(' ') }, 'cover page: characters the bundled font cannot draw');
      pdf = covered.pdf;
    }
    const sourceType = [...new Set(normalized.map((n) => n.sourceType))].join('+');
    return { pdf, pages, sourceType, sizeBytes: uploads.reduce((n, u) => n + u.size, 0) };
  }

  /** The fields of a new job that follow from its document and the submit's options. */
  private newJob(document: PreparedDocument, options: SubmitOptions, disabled: boolean): Omit<NewFaxJob, 'id' | 'to' | 'backend' | 'pdfKey'> {
    return {
      pages: document.pages,
      sourceType: document.sourceType,
      sizeBytes: document.sizeBytes,
      disabled,
      documentSha256: sha256(document.pdf),
      coverPage: !!options.cover,
      retryMaxAttempts: options.retry?.maxAttempts,
      retryDelaySeconds: options.retry?.delaySeconds,
      callbackUrl: options.callback?.url,
      callbackFullNumbers: options.callback?.fullNumbers,
      submittedBy: options.submittedBy,
      sendAt: options.sendAt,
    };
  }

  private readonly storageError = (err: unknown): never => {
    if (err instanceof PluginNotAvailableError) throw faxErrors.error('storage_unavailable', { storageId: this.deps.documents.storageId, reason: err.message });
    throw err;
  };

  /** Audits and logs new jobs, fires their fax.queued and wakes the dispatcher. */
  private async created(rows: FaxJobRow[], sourceType: string, coverPage: boolean): Promise<void> {
    for (const row of rows) {
      this.deps.audit.record('job_created', { job_id: row.id, to: row.to_number, backend: row.backend, pages: row.pages, source_type: sourceType, status: row.status, cover_page: coverPage, ...(row.batch_id ? { batch_id: row.batch_id } : {}) });
      this.deps.logger.info({ job_id: row.id, to: maskPhone(row.to_number), backend: row.backend, status: row.status }, 'fax job created');
    }
    if (rows[0]?.status === 'disabled') return;
    for (const row of rows) await this.deps.onQueued?.(row);
    this.deps.onSubmitted();
  }

  /** Inserts the rows of jobs whose document is stored (one INSERT); undefined when a concurrent submit claimed the key. The document is deleted when the insert fails. */
  private async insertAlone(jobs: NewFaxJob[], pdfKey: string, idempotent: IdempotentSubmit | undefined): Promise<FaxJobRow[] | undefined> {
    const { store, idempotencyKeys, config, documents } = this.deps;
    const now = new Date();
    const rows = jobs.map((job) => ({ job, now }));
    try {
      // One INSERT is atomic by itself; a transaction (BEGIN and COMMIT, two more statements on
      // the request) only when the idempotency key's claim must commit with the jobs.
      return idempotent
        ? await store.db.transaction().execute(async (trx) => {
            if (!(await idempotencyKeys.claim(trx, idempotent, jobs[0]!.id, config.get('FAX_IDEMPOTENCY_TTL_HOURS') * 3600_000))) return undefined;
            return store.insertMany(rows, trx);
          })
        : await store.insertMany(rows);
    } catch (err) {
      await documents.withStorage((s) => s.delete(pdfKey)).catch(() => {});
      throw err;
    }
  }

  /** The job of an earlier submit with this key, or undefined; throws when the key asked for another fax. */
  private async replay(submit: IdempotentSubmit): Promise<FaxJobRow | undefined> {
    const jobId = await this.deps.idempotencyKeys.jobOf(submit);
    if (!jobId) return undefined;
    this.deps.audit.record('job_idempotent_replay', { job_id: jobId, by: submit.scope });
    return this.deps.store.get(jobId);
  }

  /**
   * A new job from `original`'s stored document (copied under the new job's prefix, so deleting
   * either leaves the other whole), to the same number with the same redial policy; linked both
   * ways. Refused once the document is gone.
   */
  async resend(original: FaxJobRow, by: string): Promise<FaxJobRow> {
    assertDocumentStored(original);
    const { store, documents } = this.deps;
    const { disabled, backend } = this.sendingBackend();
    const id = randomUUID();
    const pdfKey = `${jobPrefix(id)}/document.pdf`;
    await documents.withStorage(async (s) => s.put(pdfKey, await s.get(original.pdf_key))).catch(this.storageError);
    const sameSubmitter = original.submitted_by === by;
    const row = await store.insert({
      id,
      to: original.to_number,
      backend,
      pdfKey,
      pages: original.pages ?? 0,
      sourceType: original.source_type,
      sizeBytes: original.size_bytes,
      disabled,
      documentSha256: original.document_sha256 ?? undefined,
      coverPage: original.cover_page === 1,
      retryMaxAttempts: original.retry_max_attempts ?? undefined,
      retryDelaySeconds: original.retry_delay_seconds ?? undefined,
      // The callback is the submitting application's: it follows a resend by the same key only.
      callbackUrl: sameSubmitter ? (original.callback_url ?? undefined) : undefined,
      callbackFullNumbers: sameSubmitter && original.callback_full_numbers === 1,
      submittedBy: by,
      resendOf: original.id,
    });
    this.deps.audit.record('job_resent', { job_id: id, resend_of: original.id, backend: row.backend, by });
    if (!disabled) {
      await this.deps.onQueued?.(row);
      this.deps.onSubmitted();
    }
    return row;
  }

  get(id: string): Promise<FaxJobRow | undefined> {
    return this.deps.store.get(id);
  }
}

/** A batch as POST /fax and GET /fax/batches/{id} answer it: its jobs in the order of their recipients. */
export function toFaxBatchOut(batchId: string, rows: FaxJobRow[]): { batch_id: string; pages: number; created_at: string; send_at?: string; jobs: FaxJobOut[] } {
  const first = rows[0]!;
  return {
    batch_id: batchId,
    pages: first.pages ?? 0,
    created_at: first.created_at,
    ...(first.send_at ? { send_at: first.send_at } : {}),
    jobs: rows.map((row) => toFaxJobOut(row)),
  };
}

/** A job's attempts as GET /fax/{id} shows them; errors masked like the job's own. */
export function toAttemptsOut(attempts: FaxJobAttemptRow[]): FaxAttemptOut[] {
  return attempts.map((a) => ({
    attempt: a.attempt,
    started_at: a.started_at,
    ...(a.ended_at ? { ended_at: a.ended_at } : {}),
    ...(a.outcome ? { outcome: a.outcome } : {}),
    ...(a.line_failure ? { line_failure: a.line_failure } : {}),
    ...(a.error ? { error: maskNumbers(a.error) } : {}),
    ...(a.provider_sid ? { provider_sid: a.provider_sid } : {}),
  }));
}

export function toFaxJobOut(row: FaxJobRow, attempts?: FaxJobAttemptRow[]): FaxJobOut {
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
    ...(row.send_at ? { send_at: row.send_at } : {}),
    ...(row.resend_of ? { resend_of: row.resend_of } : {}),
    ...(row.batch_id ? { batch_id: row.batch_id } : {}),
    ...(attempts ? { attempts: toAttemptsOut(attempts) } : {}),
  };
}
