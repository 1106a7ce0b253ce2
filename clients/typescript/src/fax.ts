import type { ApiRequests } from './requests.js';
import type { FaxBatch, FaxJob, PreparedFax } from './responses.js';

/** A document to fax: bytes or a Blob, with an optional file name. */
export interface FaxDocument {
  to: string;
  file: Blob | Uint8Array;
  filename?: string;
  /** The fraction of the upload sent, 0 to 1. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

export interface SendFaxOptions extends FaxDocument {
  /** More documents after `file`: all merged in order into one fax. */
  files?: Array<{ file: Blob | Uint8Array; filename?: string }>;
  cover?: { to?: string; from?: string; subject?: string; message?: string };
  retry?: { maxAttempts?: number; delaySeconds?: number };
  /** ISO 8601 with a zone: the job waits in queued until then. */
  sendAt?: string;
  /** Makes a retried send safe (see POST /fax). */
  idempotencyKey?: string;
}

/** Several documents (merged in order) to several numbers: one job per number sharing one stored document. */
export interface SendFaxBatchOptions {
  to: string[];
  files: Array<{ file: Blob | Uint8Array; filename?: string }>;
  cover?: SendFaxOptions['cover'];
  retry?: SendFaxOptions['retry'];
  /** ISO 8601 with a zone: every job of the batch waits until then. */
  sendAt?: string;
  /** Covers the whole batch: a retry answers the same batch (200). */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** What a send by approval must match, or it is refused (409) and nothing is sent. */
export interface ApprovalExpectation {
  to?: string;
  sha256?: string;
  /** Not an expectation: when to send (ISO 8601 with a zone); absent sends now. */
  send_at?: string;
}

export interface FaxCalls {
  /** POST /fax as multipart: the job (202), or the earlier one for a repeated Idempotency-Key (200). */
  sendFax(options: SendFaxOptions): Promise<FaxJob>;
  /** POST /fax with two or more numbers in `to` (and one or more files): the batch (202), or the earlier one for a repeated Idempotency-Key (200). */
  sendFaxBatch(options: SendFaxBatchOptions): Promise<FaxBatch>;
  /** POST /fax/prepare: a preview and approval id; nothing is sent. */
  prepareFax(document: FaxDocument): Promise<PreparedFax>;
  /** POST /fax/approvals/{id}/send: sends exactly the prepared document to the prepared number. */
  sendApproved(approvalId: string, expect?: ApprovalExpectation, options?: { signal?: AbortSignal }): Promise<FaxJob>;
}

export function createFaxCalls(requests: ApiRequests): FaxCalls {
  const multipart = <T>(path: string, parts: { to: string[]; files: Array<{ file: Blob | Uint8Array; filename?: string | undefined }>; fields: Record<string, string | undefined> }, options: { headers?: Record<string, string>; onProgress?: ((fraction: number) => void) | undefined; signal?: AbortSignal | undefined }) => {
    const form = new FormData();
    for (const to of parts.to) form.append('to', to);
    for (const [name, value] of Object.entries(parts.fields)) if (value !== undefined) form.set(name, value);
    for (const { file, filename } of parts.files) form.append('file', file instanceof Blob ? file : new Blob([new Uint8Array(file)]), filename ?? 'document');
    const { headers = {}, onProgress, signal } = options;
    return requests.request<T>('POST', path, { form, headers, ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) });
  };
  const upload = <T>(path: string, document: FaxDocument, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) =>
    multipart<T>(path, { to: [document.to], files: [document], fields }, { headers, onProgress: document.onProgress, signal: document.signal });
  const sendFields = (cover: SendFaxOptions['cover'] = {}, retry: SendFaxOptions['retry'] = {}) => ({
    cover_to: cover.to,
    cover_from: cover.from,
    cover_subject: cover.subject,
    cover_message: cover.message,
    retry_max_attempts: retry.maxAttempts?.toString(),
    retry_delay_seconds: retry.delaySeconds?.toString(),
  });
  return {
    sendFax: ({ cover, retry, sendAt, idempotencyKey, files = [], ...document }) =>
      multipart<FaxJob>('/fax', { to: [document.to], files: [document, ...files], fields: { ...sendFields(cover, retry), send_at: sendAt } }, { headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}, onProgress: document.onProgress, signal: document.signal }),
    sendFaxBatch: ({ to, files, cover, retry, sendAt, idempotencyKey, signal }) =>
      multipart<FaxBatch>('/fax', { to, files, fields: { ...sendFields(cover, retry), send_at: sendAt } }, { headers: idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}, signal }),
    prepareFax: (document) => upload<PreparedFax>('/fax/prepare', document, {}),
    sendApproved: (approvalId, expect = {}, options = {}) =>
      requests.request<FaxJob>('POST', '/fax/approvals/{id}/send', { params: { id: approvalId }, json: expect, ...(options.signal ? { signal: options.signal } : {}) }),
  };
}
