import type { ApiRequests } from './requests.js';
import type { FaxJob, PreparedFax } from './responses.js';

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
  cover?: { to?: string; from?: string; subject?: string; message?: string };
  retry?: { maxAttempts?: number; delaySeconds?: number };
  /** Makes a retried send safe (see POST /fax). */
  idempotencyKey?: string;
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
  /** POST /fax/prepare: a preview and approval id; nothing is sent. */
  prepareFax(document: FaxDocument): Promise<PreparedFax>;
  /** POST /fax/approvals/{id}/send: sends exactly the prepared document to the prepared number. */
  sendApproved(approvalId: string, expect?: ApprovalExpectation, options?: { signal?: AbortSignal }): Promise<FaxJob>;
}

export function createFaxCalls(requests: ApiRequests): FaxCalls {
  const upload = <T>(path: string, document: FaxDocument, fields: Record<string, string | undefined>, headers: Record<string, string> = {}) => {
    const form = new FormData();
    form.set('to', document.to);
    for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.set(name, value);
    const file = document.file instanceof Blob ? document.file : new Blob([new Uint8Array(document.file)]);
    form.set('file', file, document.filename ?? 'document');
    const { onProgress, signal } = document;
    return requests.request<T>('POST', path, { form, headers, ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}) });
  };
  return {
    sendFax: ({ cover = {}, retry = {}, idempotencyKey, ...document }) =>
      upload<FaxJob>(
        '/fax',
        document,
        {
          cover_to: cover.to,
          cover_from: cover.from,
          cover_subject: cover.subject,
          cover_message: cover.message,
          retry_max_attempts: retry.maxAttempts?.toString(),
          retry_delay_seconds: retry.delaySeconds?.toString(),
        },
        idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {},
      ),
    prepareFax: (document) => upload<PreparedFax>('/fax/prepare', document, {}),
    sendApproved: (approvalId, expect = {}, options = {}) =>
      requests.request<FaxJob>('POST', '/fax/approvals/{id}/send', { params: { id: approvalId }, json: expect, ...(options.signal ? { signal: options.signal } : {}) }),
  };
}
