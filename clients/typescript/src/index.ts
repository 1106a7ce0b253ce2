/**
 * A typed client for the Switchboard gateway: openapi-fetch over the types openapi-typescript
 * generated from /openapi.json (src/schema.d.ts), and helpers where generation cannot help: a
 * multipart fax upload and the server-sent events of a streamed answer.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

type Schema<T> = T extends { content: { 'application/json': infer B } } ? B : never;
/** A fax job as the API answers it. */
export type FaxJob = Schema<paths['/fax/{id}']['get']['responses'][200]>;
/** The preview POST /fax/prepare answers. */
export type PreparedFax = Schema<paths['/fax/prepare']['post']['responses'][201]>;
/** An answer of POST /api/rag. */
export type Answer = Schema<paths['/api/rag']['post']['responses'][200]>;
export type ErrorBody = components['schemas']['ErrorBody'];

/** A failed call: the status and the API's `{detail, code}`. */
export class SwitchboardApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = 'SwitchboardApiError';
  }
}

export interface SwitchboardClientOptions {
  /** The gateway, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** Sent as X-API-Key. */
  apiKey?: string;
  /** Another fetch (a proxy agent, a test double of the network). */
  fetch?: typeof globalThis.fetch;
}

/** A document to fax: bytes or a Blob, with an optional file name. */
export interface FaxDocument {
  to: string;
  file: Blob | Uint8Array;
  filename?: string;
}

export interface SendFaxOptions extends FaxDocument {
  cover?: { to?: string; from?: string; subject?: string; message?: string };
  retry?: { maxAttempts?: number; delaySeconds?: number };
  /** Makes a retried send safe (see POST /fax). */
  idempotencyKey?: string;
}

export interface AnswerStreamHandlers {
  /** Text of the answer as it is written. */
  onToken?: (text: string) => void;
  /** A fallback replaces the text sent so far. */
  onReset?: () => void;
  signal?: AbortSignal;
}

export interface AnswerQuestion {
  question: string;
  repo?: string;
  top_k?: number;
}

export interface SwitchboardHelpers {
  /** POST /fax as multipart: the job (202), or the earlier one for a repeated Idempotency-Key (200). */
  sendFax(options: SendFaxOptions): Promise<FaxJob>;
  /** POST /fax/prepare: a preview and approval id; nothing is sent. */
  prepareFax(document: FaxDocument): Promise<PreparedFax>;
  /** POST /fax/approvals/{id}/send: sends exactly the prepared document to the prepared number. */
  sendApproved(approvalId: string, expect?: { to?: string; sha256?: string }): Promise<FaxJob>;
  /** POST /api/rag with stream=true: tokens to the handlers as they come, then the final answer. */
  streamAnswer(question: AnswerQuestion, handlers?: AnswerStreamHandlers): Promise<Answer>;
}

export type SwitchboardClient = Client<paths> & SwitchboardHelpers;

function blobOf(file: Blob | Uint8Array): Blob {
  return file instanceof Blob ? file : new Blob([new Uint8Array(file)]);
}

async function failure(response: Response): Promise<SwitchboardApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    return new SwitchboardApiError(response.status, body.detail ?? text, body.code ?? `http_${response.status}`);
  } catch {
    return new SwitchboardApiError(response.status, text || response.statusText, `http_${response.status}`);
  }
}

/** The generated, typed client (GET, POST, ... by path) with the helpers above. */
export function createSwitchboardClient(options: SwitchboardClientOptions): SwitchboardClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const auth: Record<string, string> = options.apiKey ? { 'X-API-Key': options.apiKey } : {};
  const api = createClient<paths>({ baseUrl, headers: auth, fetch: doFetch });

  async function postJson<T>(path: string, init: { body: BodyInit; headers?: Record<string, string>; signal?: AbortSignal }): Promise<T> {
    const response = await doFetch(`${baseUrl}${path}`, { method: 'POST', ...init, headers: { ...auth, accept: 'application/json', ...(init.headers ?? {}) } });
    if (!response.ok) throw await failure(response);
    return (await response.json()) as T;
  }

  const helpers: SwitchboardHelpers = {
    async sendFax({ to, file, filename, cover, retry, idempotencyKey }) {
      const form = new FormData();
      form.set('to', to);
      for (const [name, value] of Object.entries(cover ?? {})) if (value !== undefined) form.set(`cover_${name}`, value);
      if (retry?.maxAttempts !== undefined) form.set('retry_max_attempts', String(retry.maxAttempts));
      if (retry?.delaySeconds !== undefined) form.set('retry_delay_seconds', String(retry.delaySeconds));
      form.set('file', blobOf(file), filename ?? 'document');
      return postJson<FaxJob>('/fax', { body: form, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });
    },
    async prepareFax({ to, file, filename }) {
      const form = new FormData();
      form.set('to', to);
      form.set('file', blobOf(file), filename ?? 'document');
      return postJson<PreparedFax>('/fax/prepare', { body: form });
    },
    async sendApproved(approvalId, expect = {}) {
      return postJson<FaxJob>(`/fax/approvals/${encodeURIComponent(approvalId)}/send`, { body: JSON.stringify(expect), headers: { 'content-type': 'application/json' } });
    },
    async streamAnswer(question, handlers = {}) {
      const response = await doFetch(`${baseUrl}/api/rag`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ ...question, stream: true }),
        ...(handlers.signal ? { signal: handlers.signal } : {}),
      });
      if (!response.ok) throw await failure(response);
      if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return (await response.json()) as Answer;
      let final: Answer | undefined;
      const decoder = new TextDecoder();
      let buffer = '';
      const handle = (block: string) => {
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length === 0) return;
        const parsed = JSON.parse(data.join('\n')) as Record<string, unknown>;
        if (event === 'token') handlers.onToken?.(String(parsed.text ?? ''));
        else if (event === 'reset') handlers.onReset?.();
        else if (event === 'final') final = parsed as unknown as Answer;
        else if (event === 'error') throw new SwitchboardApiError(response.status, String(parsed.detail ?? 'the answer failed'), String(parsed.code ?? 'internal_error'));
      };
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          handle(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
      if (buffer.trim()) handle(buffer);
      if (!final) throw new SwitchboardApiError(response.status, 'the answer stream ended without a final event', 'stream_incomplete');
      return final;
    },
  };
  return Object.assign(api, helpers);
}
