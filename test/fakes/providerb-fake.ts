/**
 * A loopback Provider B (hosted fax, REST v3) speaking the wire format of
 * shared/reference/fax-backends.md: Basic auth, JSON `{to, contentUrl}` or multipart `file` +
 * `to`, fax objects `{id, status, ...}`, and a list filtered by `to` with `nextPageToken` paging.
 */
import { randomBytes } from 'node:crypto';
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
  type FormFile,
} from './hosted-fax-fake-kit.js';

export interface ProviderBFakeOptions {
  projectId: string;
  apiKey: string;
  apiSecret: string;
  /** Faxes per list page when the client asks for no pageSize (default 20). */
  defaultPageSize?: number;
}

/** One POST /projects/{p}/faxes as received, whatever was answered. */
export interface ProviderBSendSeen {
  authorization: string | undefined;
  contentType: string;
  /** The JSON body, or the multipart text fields (first value each). */
  fields: Record<string, unknown>;
  files: Array<{ field: string; filename: string; mimeType: string; size: number }>;
  pdfPages?: number;
  pdfError?: string;
  answer: number | 'hung';
}

export interface ProviderBFaxRecord {
  id: string;
  to: string;
  contentUrl?: string;
  status: string;
  numberOfPages: number | null;
  errorCode: string | null;
  errorMessage: string | null;
  createTime: string;
  completedTime: string | null;
}

const PHONE = /^\+?\d{6,20}$/;
const TERMINAL = new Set(['COMPLETED', 'FAILURE']);

export interface ProviderBFake {
  url: string;
  /** What to put in the plugin's baseUrl setting. */
  baseUrl: string;
  sends: ProviderBSendSeen[];
  faxes: Map<string, ProviderBFaxRecord>;
  /** List requests received (query strings), to see paging. */
  listQueries: string[];
  failNext(n: number, status?: number, retryAfterSeconds?: number): void;
  hangAfterAccept(n: number): void;
  garbleAfterAccept(n: number): void;
  setStatus(id: string, raw: string, pages?: number | null, error?: { code: string; message: string }): void;
  close(): Promise<void>;
}

function error(res: ServerResponse, code: number, status: string, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, code, { code, message, status, details: [] }, headers);
}

/** A ULID-looking id, as provider B hands out. */
function faxId(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return '01H' + [...randomBytes(23)].map((b) => alphabet[b % 32]).join('');
}

export async function startProviderBFake(options: ProviderBFakeOptions): Promise<ProviderBFake> {
  const sends: ProviderBSendSeen[] = [];
  const faxes = new Map<string, ProviderBFaxRecord>();
  const listQueries: string[] = [];
  const failing = new Countdown<{ status: number; retryAfter?: number }>();
  const hanging = new Countdown();
  const garbling = new Countdown();
  const prefix = `/v3/projects/${options.projectId}/faxes`;

  const view = (fax: ProviderBFaxRecord) => ({
    id: fax.id,
    direction: 'OUTBOUND',
    from: '+15550000000',
    to: fax.to,
    ...(fax.contentUrl ? { contentUrl: fax.contentUrl } : {}),
    numberOfPages: fax.numberOfPages,
    status: fax.status,
    price: { amount: '0.07', currencyCode: 'USD' },
    createTime: fax.createTime,
    completedTime: fax.completedTime,
    ...(fax.errorCode ? { errorType: 'CALL_ERROR', errorCode: fax.errorCode, errorMessage: fax.errorMessage } : {}),
    projectId: options.projectId,
  });

  async function createFax(req: IncomingMessage, res: ServerResponse, body: Buffer, seen: ProviderBSendSeen): Promise<void> {
    let to: string | undefined;
    let contentUrl: string | undefined;
    let file: FormFile | undefined;
    if (seen.contentType.startsWith('application/json')) {
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        seen.answer = 400;
        return error(res, 400, 'INVALID_ARGUMENT', 'Request body is not valid JSON');
      }
      seen.fields = json;
      to = typeof json.to === 'string' ? json.to : undefined;
      contentUrl = typeof json.contentUrl === 'string' ? json.contentUrl : undefined;
    } else if (seen.contentType.startsWith('multipart/form-data')) {
      const form = await parseForm(req.headers, body);
      seen.fields = Object.fromEntries(Object.entries(form.fields).map(([k, v]) => [k, v[0]]));
      seen.files = form.files.map((f) => ({ field: f.field, filename: f.filename, mimeType: f.mimeType, size: f.data.length }));
      to = form.fields.to?.[0];
      file = form.files.find((f) => f.field === 'file');
    } else {
      seen.answer = 415;
      return error(res, 415, 'INVALID_ARGUMENT', 'Unsupported content type');
    }
    const fail = failing.take();
    if (fail) {
      seen.answer = fail.value!.status;
      const headers: Record<string, string> = fail.value!.retryAfter !== undefined ? { 'retry-after': String(fail.value!.retryAfter) } : {};
      return error(res, fail.value!.status, 'UNAVAILABLE', 'The service is currently unavailable', headers);
    }
    const invalid = !to ? 'to is required' : !PHONE.test(to) ? 'to is not a valid phone number' : !contentUrl && !file ? 'contentUrl or file is required' : null;
    if (invalid) {
      seen.answer = 400;
      return error(res, 400, 'INVALID_ARGUMENT', `Invalid argument: ${invalid}`);
    }
    const document = file ? await countDocument(file.data) : await fetchDocument(contentUrl!);
    if ('pages' in document) seen.pdfPages = document.pages;
    else seen.pdfError = document.error;
    const fax: ProviderBFaxRecord = {
      id: faxId(),
      to: to!,
      ...(contentUrl ? { contentUrl } : {}),
      status: 'pages' in document ? 'QUEUED' : 'FAILURE',
      numberOfPages: 'pages' in document ? document.pages : null,
      errorCode: 'pages' in document ? null : 'DOCUMENT_CONVERSION_ERROR',
      errorMessage: 'pages' in document ? null : 'The document could not be converted',
      createTime: new Date().toISOString(),
      completedTime: null,
    };
    faxes.set(fax.id, fax);
    if (hanging.take()) {
      seen.answer = 'hung';
      return;
    }
    seen.answer = 200;
    if (garbling.take()) return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>upstream maintenance</html>');
    sendJson(res, 200, view(fax));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const isSend = req.method === 'POST' && /^\/v3\/projects\/[^/]+\/faxes$/.test(url.pathname);
    const seen: ProviderBSendSeen | undefined = isSend
      ? { authorization: req.headers.authorization, contentType: req.headers['content-type'] ?? '', fields: {}, files: [], answer: 0 }
      : undefined;
    if (seen) sends.push(seen);

    const creds = basicCredentials(req);
    if (!creds || creds.user !== options.apiKey || creds.pass !== options.apiSecret) {
      if (seen) seen.answer = 401;
      return error(res, 401, 'UNAUTHENTICATED', 'Invalid credentials');
    }
    if (!url.pathname.startsWith(prefix)) {
      if (seen) seen.answer = 404;
      return error(res, 404, 'NOT_FOUND', 'Project not found');
    }
    if (seen) return createFax(req, res, body, seen);

    if (req.method === 'GET' && url.pathname === prefix) {
      listQueries.push(url.search);
      const to = url.searchParams.get('to');
      const pageSize = Number(url.searchParams.get('pageSize') ?? options.defaultPageSize ?? 20);
      const offset = Number(Buffer.from(url.searchParams.get('pageToken') ?? '', 'base64url').toString() || 0);
      const all = [...faxes.values()].filter((f) => !to || f.to === to).reverse();
      const page = all.slice(offset, offset + pageSize).map(view);
      const next = offset + pageSize < all.length ? Buffer.from(String(offset + pageSize)).toString('base64url') : undefined;
      return sendJson(res, 200, { faxes: page, totalItems: all.length, pageSize, ...(next ? { nextPageToken: next } : {}) });
    }
    const one = url.pathname.slice(prefix.length).match(/^\/([^/]+)$/);
    if (req.method === 'GET' && one) {
      const fax = faxes.get(decodeURIComponent(one[1]!));
      return fax ? sendJson(res, 200, view(fax)) : error(res, 404, 'NOT_FOUND', 'Fax not found');
    }
    error(res, 404, 'NOT_FOUND', 'Not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => error(res, 500, 'INTERNAL', String(err)));
  });
  const origin = await listen(server);
  return {
    url: origin,
    baseUrl: `${origin}/v3`,
    sends,
    faxes,
    listQueries,
    failNext: (n, status = 503, retryAfter) => failing.arm(n, { status, ...(retryAfter !== undefined ? { retryAfter } : {}) }),
    hangAfterAccept: (n) => hanging.arm(n),
    garbleAfterAccept: (n) => garbling.arm(n),
    setStatus(id, raw, pages, err) {
      const fax = faxes.get(id);
      if (!fax) throw new Error(`no fax ${id}`);
      fax.status = raw;
      if (pages !== undefined) fax.numberOfPages = pages;
      fax.errorCode = err?.code ?? null;
      fax.errorMessage = err?.message ?? null;
      if (TERMINAL.has(raw)) fax.completedTime = new Date().toISOString();
    },
    close: () => closeServer(server),
  };
}
