/**
 * A loopback Provider A (hosted fax, REST v2) speaking the wire format of
 * shared/reference/fax-backends.md: form posts with Basic auth, `{success, message, data}`
 * answers, status / list-by-tag / cancel endpoints, HMAC-SHA256-signed status callbacks.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  basicCredentials,
  closeServer,
  countDocument,
  Countdown,
  fetchDocument,
  listen,
  parseForm,
  readBody,
  sendJson,
  type ParsedForm,
} from './hosted-fax-fake-kit.js';

export interface ProviderAFakeOptions {
  apiKey: string;
  apiSecret: string;
}

/** One POST /faxes as received, whatever was answered. */
export interface ProviderASendSeen {
  authorization: string | undefined;
  contentType: string;
  fields: Record<string, string[]>;
  files: Array<{ field: string; filename: string; mimeType: string; size: number }>;
  /** Pages of the downloaded or uploaded PDF; unset when it was not a PDF. */
  pdfPages?: number;
  pdfError?: string;
  answer: number | 'hung';
}

export interface ProviderAFaxRecord {
  id: number;
  to: string;
  status: string;
  num_pages: number | null;
  tags: Record<string, string>;
  callback_url?: string;
  content_url?: string;
  error_type: string | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
}

const TERMINAL = new Set(['success', 'failure', 'partialsuccess', 'cancelled']);
const PHONE = /^\+?\d{6,20}$/;

export interface ProviderAFake {
  /** Origin of the server. */
  url: string;
  /** What to put in the plugin's baseUrl setting. */
  baseUrl: string;
  sends: ProviderASendSeen[];
  faxes: Map<number, ProviderAFaxRecord>;
  /** Answer the next n sends with `status` (5xx, 429, ...) before accepting anything. */
  failNext(n: number, status?: number, retryAfterSeconds?: number): void;
  /** Accept and store the next n faxes, then never answer. */
  hangAfterAccept(n: number): void;
  /** Accept and store the next n faxes, then answer 200 with a body that is not JSON. */
  garbleAfterAccept(n: number): void;
  setStatus(id: number | string, raw: string, pages?: number | null, error?: { type: string; message: string }): void;
  /** A status callback for the fax tagged with jobId, signed with the API secret, to its callback_url. */
  buildCallback(jobId: string, options?: { encoding?: 'urlencoded' | 'multipart'; signature?: string | null }): { url: string; body: Buffer; headers: Record<string, string> };
  /** Posts buildCallback's request to its URL. */
  postCallback(jobId: string): Promise<Response>;
  /** Serves `body` at GET /media/<name> (unauthenticated, as the provider's file links are) and returns its URL. */
  addMedia(name: string, body: Buffer): string;
  close(): Promise<void>;
}

export async function startProviderAFake(options: ProviderAFakeOptions): Promise<ProviderAFake> {
  const sends: ProviderASendSeen[] = [];
  const faxes = new Map<number, ProviderAFaxRecord>();
  const failing = new Countdown<{ status: number; retryAfter?: number }>();
  const hanging = new Countdown();
  const garbling = new Countdown();
  let nextId = 12345;
  const media = new Map<string, Buffer>();

  const view = (fax: ProviderAFaxRecord) => ({
    id: fax.id,
    direction: 'sent',
    num_pages: fax.num_pages,
    status: fax.status,
    is_test: false,
    created_at: fax.created_at,
    completed_at: fax.completed_at,
    caller_id: null,
    from_number: null,
    cost: 7,
    tags: fax.tags,
    error_type: fax.error_type,
    error_message: fax.error_message,
    recipients: [
      {
        phone_number: fax.to,
        status: fax.status,
        retry_count: 0,
        completed_at: fax.completed_at,
        error_type: fax.error_type,
        error_message: fax.error_message,
      },
    ],
  });

  async function createFax(req: IncomingMessage, res: ServerResponse, form: ParsedForm, seen: ProviderASendSeen): Promise<void> {
    const fail = failing.take();
    if (fail) {
      seen.answer = fail.value!.status;
      const headers: Record<string, string> = fail.value!.retryAfter !== undefined ? { 'retry-after': String(fail.value!.retryAfter) } : {};
      return sendJson(res, fail.value!.status, { success: false, message: 'Service temporarily unavailable' }, headers);
    }
    const to = form.fields.to?.[0] ?? form.fields['to[]']?.[0];
    const contentUrl = form.fields['content_url[]']?.[0] ?? form.fields.content_url?.[0];
    const file = form.files.find((f) => f.field === 'file' || f.field === 'file[]');
    const invalid = !to
      ? 'The to parameter is required'
      : !PHONE.test(to)
        ? 'Invalid phone number'
        : !contentUrl && !file
          ? 'You must provide at least one file or content_url'
          : null;
    if (invalid) {
      seen.answer = 422;
      return sendJson(res, 422, { success: false, message: invalid });
    }
    const document = file ? await countDocument(file.data) : await fetchDocument(contentUrl!);
    if ('pages' in document) seen.pdfPages = document.pages;
    else seen.pdfError = document.error;

    const tags: Record<string, string> = {};
    for (const [name, values] of Object.entries(form.fields)) {
      const tag = name.match(/^tag\[(.+)\]$/)?.[1];
      if (tag && values[0] !== undefined) tags[tag] = values[0];
    }
    const fax: ProviderAFaxRecord = {
      id: nextId++,
      to: to!,
      status: 'pages' in document ? 'queued' : 'failure',
      num_pages: 'pages' in document ? document.pages : null,
      tags,
      ...(form.fields.callback_url?.[0] ? { callback_url: form.fields.callback_url[0] } : {}),
      ...(contentUrl ? { content_url: contentUrl } : {}),
      error_type: 'pages' in document ? null : 'documentConversionError',
      error_message: 'pages' in document ? null : 'The document could not be converted',
      created_at: new Date().toISOString(),
      completed_at: null,
    };
    faxes.set(fax.id, fax);
    if (hanging.take()) {
      seen.answer = 'hung';
      return; // accepted and stored; the answer never comes
    }
    seen.answer = 200;
    if (garbling.take()) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>upstream maintenance</html>');
    sendJson(res, 200, { success: true, message: 'Fax queued for sending', data: { id: fax.id } });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const file = req.method === 'GET' && url.pathname.startsWith('/media/') ? media.get(url.pathname.slice('/media/'.length)) : undefined;
    if (file) return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(file);
    const isSend = req.method === 'POST' && url.pathname === '/v2/faxes';
    const seen: ProviderASendSeen | undefined = isSend
      ? { authorization: req.headers.authorization, contentType: req.headers['content-type'] ?? '', fields: {}, files: [], answer: 0 }
      : undefined;
    if (seen) sends.push(seen);

    const creds = basicCredentials(req);
    if (!creds || creds.user !== options.apiKey || creds.pass !== options.apiSecret) {
      if (seen) seen.answer = 401;
      return sendJson(res, 401, { success: false, message: 'Invalid API credentials' });
    }

    if (seen) {
      const form = await parseForm(req.headers, body);
      seen.fields = form.fields;
      seen.files = form.files.map((f) => ({ field: f.field, filename: f.filename, mimeType: f.mimeType, size: f.data.length }));
      return createFax(req, res, form, seen);
    }
    if (req.method === 'GET' && url.pathname === '/v2/faxes') {
      const wanted = [...url.searchParams].filter(([k]) => /^tag\[.+\]$/.test(k)).map(([k, v]) => [k.slice(4, -1), v] as const);
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      const all = [...faxes.values()].filter((fax) => wanted.every(([k, v]) => fax.tags[k] === v)).reverse();
      const data = all.slice((page - 1) * perPage, page * perPage).map(view);
      return sendJson(res, 200, { success: true, message: 'Retrieved faxes successfully', data, paging: { total: all.length, per_page: perPage, page } });
    }
    const one = url.pathname.match(/^\/v2\/faxes\/(\d+)(\/cancel)?$/);
    const fax = one ? faxes.get(Number(one[1])) : undefined;
    if (one && !fax) return sendJson(res, 404, { success: false, message: 'Fax not found' });
    if (fax && req.method === 'GET' && !one![2]) {
      return sendJson(res, 200, { success: true, message: 'Retrieved fax successfully', data: view(fax) });
    }
    if (fax && req.method === 'POST' && one![2]) {
      if (TERMINAL.has(fax.status)) return sendJson(res, 422, { success: false, message: 'Fax cannot be cancelled: it is already complete' });
      fax.status = 'cancelled';
      fax.completed_at = new Date().toISOString();
      return sendJson(res, 200, { success: true, message: 'Fax canceled successfully.' });
    }
    sendJson(res, 404, { success: false, message: 'Not found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => sendJson(res, 500, { success: false, message: String(err) }));
  });
  const origin = await listen(server);

  function buildCallback(jobId: string, opts: { encoding?: 'urlencoded' | 'multipart'; signature?: string | null } = {}) {
    const fax = [...faxes.values()].find((f) => f.tags.job_id === jobId);
    if (!fax?.callback_url) throw new Error(`no fax with a callback_url for job ${jobId}`);
    const fields: Array<[string, string]> = [
      ['fax[id]', String(fax.id)],
      ['fax[status]', fax.status],
      ['fax[num_pages]', fax.num_pages === null ? '' : String(fax.num_pages)],
      ['fax[error_type]', fax.error_type ?? ''],
      ['fax[error_message]', fax.error_message ?? ''],
    ];
    let body: Buffer;
    let contentType: string;
    if (opts.encoding === 'multipart') {
      const boundary = `----providera${fax.id}`;
      body = Buffer.from(
        fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + `--${boundary}--\r\n`,
      );
      contentType = `multipart/form-data; boundary=${boundary}`;
    } else {
      body = Buffer.from(new URLSearchParams(fields).toString());
      contentType = 'application/x-www-form-urlencoded';
    }
    const headers: Record<string, string> = { 'content-type': contentType };
    const signature = opts.signature === undefined ? createHmac('sha256', options.apiSecret).update(body).digest('hex') : opts.signature;
    if (signature !== null) headers['x-providera-signature'] = signature;
    return { url: fax.callback_url, body, headers };
  }

  return {
    url: origin,
    baseUrl: `${origin}/v2`,
    sends,
    faxes,
    failNext: (n, status = 503, retryAfter) => failing.arm(n, { status, ...(retryAfter !== undefined ? { retryAfter } : {}) }),
    hangAfterAccept: (n) => hanging.arm(n),
    addMedia(name, body) {
      media.set(name, body);
      return `${origin}/media/${name}`;
    },
    garbleAfterAccept: (n) => garbling.arm(n),
    setStatus(id, raw, pages, error) {
      const fax = faxes.get(Number(id));
      if (!fax) throw new Error(`no fax ${id}`);
      fax.status = raw;
      if (pages !== undefined) fax.num_pages = pages;
      fax.error_type = error?.type ?? null;
      fax.error_message = error?.message ?? null;
      if (TERMINAL.has(raw)) fax.completed_at = new Date().toISOString();
    },
    buildCallback,
    async postCallback(jobId) {
      const { url, body, headers } = buildCallback(jobId);
      return fetch(url, { method: 'POST', headers, body: new Uint8Array(body) });
    },
    close: () => closeServer(server),
  };
}
