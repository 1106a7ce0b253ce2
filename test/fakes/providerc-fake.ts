/**
 * A loopback Provider C (Twilio-compatible "LaML" REST) speaking the wire format of
 * shared/reference/fax-backends.md: Basic auth (project id : token), form posts to
 * .../Accounts/{project}/Faxes.json, fax resources `{sid, status, num_pages, ...}`, lists with
 * `next_page_uri`, cancel by `Status=canceled`, and status callbacks signed the Twilio way.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { basicCredentials, closeServer, Countdown, fetchDocument, listen, parseForm, readBody, sendJson } from './hosted-fax-fake-kit.js';

export interface ProviderCFakeOptions {
  projectId: string;
  apiToken: string;
  /** Faxes per list page when the client asks for no PageSize (default 50). */
  defaultPageSize?: number;
}

/** One POST .../Faxes.json as received, whatever was answered. */
export interface ProviderCSendSeen {
  authorization: string | undefined;
  contentType: string;
  fields: Record<string, string[]>;
  pdfPages?: number;
  pdfError?: string;
  answer: number | 'hung';
}

export interface ProviderCFaxRecord {
  sid: string;
  to: string;
  from: string;
  media_url: string;
  status: string;
  num_pages: number | null;
  status_callback?: string;
  error_code: string | null;
  error_message: string | null;
  date_created: string;
  date_updated: string;
}

const API = '/api/laml/2010-04-01';
const PHONE = /^\+?\d{6,20}$/;
const CANCELABLE = new Set(['queued', 'processing']);

export interface ProviderCFake {
  url: string;
  /** What to put in the plugin's baseUrl setting. */
  baseUrl: string;
  sends: ProviderCSendSeen[];
  faxes: Map<string, ProviderCFaxRecord>;
  listQueries: string[];
  failNext(n: number, status?: number, retryAfterSeconds?: number): void;
  hangAfterAccept(n: number): void;
  garbleAfterAccept(n: number): void;
  setStatus(sid: string, raw: string, pages?: number | null, error?: { code: string; message: string }): void;
  /** A status callback for the fax of jobId, to its StatusCallback URL, signed with the token. */
  buildCallback(
    jobId: string,
    options?: { signature?: string | null; header?: 'x-signalwire-signature' | 'x-twilio-signature'; url?: string; sid?: string },
  ): { url: string; body: Buffer; headers: Record<string, string> };
  /** The callback of the job's first fax, or of the fax `sid` (a job redialled has several). */
  postCallback(jobId: string, sid?: string): Promise<Response>;
  close(): Promise<void>;
}

function twilioError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { code, message, more_info: `https://developer.example/errors/${code}`, status }, headers);
}

/** The Twilio-compatible signature: base64 HMAC-SHA1 of the URL then sorted name+value pairs. */
export function signProviderCCallback(url: string, params: Array<[string, string]>, apiToken: string): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return createHmac('sha1', apiToken)
    .update(url + sorted.map(([k, v]) => k + v).join(''))
    .digest('base64');
}

export async function startProviderCFake(options: ProviderCFakeOptions): Promise<ProviderCFake> {
  const sends: ProviderCSendSeen[] = [];
  const faxes = new Map<string, ProviderCFaxRecord>();
  const listQueries: string[] = [];
  const failing = new Countdown<{ status: number; retryAfter?: number }>();
  const hanging = new Countdown();
  const garbling = new Countdown();
  const account = `${API}/Accounts/${options.projectId}`;

  const view = (fax: ProviderCFaxRecord) => ({
    account_sid: options.projectId,
    api_version: 'v1',
    date_created: fax.date_created,
    date_updated: fax.date_updated,
    direction: 'outbound',
    from: fax.from,
    media_url: fax.media_url,
    media_sid: fax.sid.replace(/^./, 'M'),
    num_pages: fax.num_pages,
    price: null,
    price_unit: 'USD',
    quality: 'fine',
    sid: fax.sid,
    status: fax.status,
    to: fax.to,
    duration: 0,
    links: { media: `${account}/Faxes/${fax.sid}/Media.json` },
    url: `${account}/Faxes/${fax.sid}.json`,
  });

  async function createFax(req: IncomingMessage, res: ServerResponse, body: Buffer, seen: ProviderCSendSeen): Promise<void> {
    const form = await parseForm(req.headers, body);
    seen.fields = form.fields;
    const fail = failing.take();
    if (fail) {
      seen.answer = fail.value!.status;
      const headers: Record<string, string> = fail.value!.retryAfter !== undefined ? { 'retry-after': String(fail.value!.retryAfter) } : {};
      return twilioError(res, fail.value!.status, 20500, 'Internal Server Error', headers);
    }
    const [to, from, mediaUrl] = [form.fields.To?.[0], form.fields.From?.[0], form.fields.MediaUrl?.[0]];
    const invalid: [number, string] | null = !to
      ? [21604, "A 'To' phone number is required."]
      : !PHONE.test(to)
        ? [21211, "Invalid 'To' Phone Number"]
        : !from
          ? [21603, "A 'From' phone number is required."]
          : !mediaUrl
            ? [21620, "A 'MediaUrl' is required."]
            : null;
    if (invalid) {
      seen.answer = 400;
      return twilioError(res, 400, invalid[0], invalid[1]);
    }
    const document = await fetchDocument(mediaUrl!);
    if ('pages' in document) seen.pdfPages = document.pages;
    else seen.pdfError = document.error;
    const now = new Date().toUTCString();
    const fax: ProviderCFaxRecord = {
      sid: randomUUID(),
      to: to!,
      from: from!,
      media_url: mediaUrl!,
      status: 'pages' in document ? 'queued' : 'failed',
      num_pages: 'pages' in document ? document.pages : null,
      ...(form.fields.StatusCallback?.[0] ? { status_callback: form.fields.StatusCallback[0] } : {}),
      error_code: 'pages' in document ? null : '15002',
      error_message: 'pages' in document ? null : 'Unable to process the media',
      date_created: now,
      date_updated: now,
    };
    faxes.set(fax.sid, fax);
    if (hanging.take()) {
      seen.answer = 'hung';
      return;
    }
    seen.answer = 201;
    if (garbling.take()) return void res.writeHead(201, { 'content-type': 'text/html' }).end('<html>upstream maintenance</html>');
    sendJson(res, 201, view(fax));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    const isSend = req.method === 'POST' && /^\/api\/laml\/2010-04-01\/Accounts\/[^/]+\/Faxes(\.json)?$/.test(url.pathname);
    const seen: ProviderCSendSeen | undefined = isSend
      ? { authorization: req.headers.authorization, contentType: req.headers['content-type'] ?? '', fields: {}, answer: 0 }
      : undefined;
    if (seen) sends.push(seen);

    const creds = basicCredentials(req);
    if (!creds || creds.user !== options.projectId || creds.pass !== options.apiToken) {
      if (seen) seen.answer = 401;
      return twilioError(res, 401, 20003, 'Authentication Error - invalid username');
    }
    if (!url.pathname.startsWith(`${account}/`)) {
      if (seen) seen.answer = 404;
      return twilioError(res, 404, 20404, 'The requested resource was not found');
    }
    if (seen) return createFax(req, res, body, seen);

    const path = url.pathname.slice(account.length);
    if (req.method === 'GET' && /^\/Faxes(\.json)?$/.test(path)) {
      listQueries.push(url.search);
      const to = url.searchParams.get('To');
      const pageSize = Number(url.searchParams.get('PageSize') ?? options.defaultPageSize ?? 50);
      const page = Number(url.searchParams.get('Page') ?? 0);
      const all = [...faxes.values()].filter((f) => !to || f.to === to).reverse();
      const pageUri = (n: number) => {
        const q = new URLSearchParams({ ...(to ? { To: to } : {}), PageSize: String(pageSize), Page: String(n) });
        if (n > 0) q.set('PageToken', `PA${n * pageSize}`);
        return `${account}/Faxes.json?${q}`;
      };
      return sendJson(res, 200, {
        faxes: all.slice(page * pageSize, (page + 1) * pageSize).map(view),
        first_page_uri: pageUri(0),
        next_page_uri: (page + 1) * pageSize < all.length ? pageUri(page + 1) : null,
        previous_page_uri: page > 0 ? pageUri(page - 1) : null,
        page,
        page_size: pageSize,
        uri: pageUri(page),
      });
    }
    const one = path.match(/^\/Faxes\/([^/.]+)(\.json)?$/);
    const fax = one ? faxes.get(decodeURIComponent(one[1]!)) : undefined;
    if (one && !fax) return twilioError(res, 404, 20404, 'The requested resource was not found');
    if (fax && req.method === 'GET') return sendJson(res, 200, view(fax));
    if (fax && req.method === 'POST') {
      const form = await parseForm(req.headers, body);
      if (form.fields.Status?.[0] !== 'canceled') return twilioError(res, 400, 20001, "Status must be 'canceled'");
      if (!CANCELABLE.has(fax.status)) return twilioError(res, 400, 20009, 'Fax can no longer be canceled');
      fax.status = 'canceled';
      fax.date_updated = new Date().toUTCString();
      return sendJson(res, 200, view(fax));
    }
    twilioError(res, 404, 20404, 'The requested resource was not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => twilioError(res, 500, 20500, String(err)));
  });
  const origin = await listen(server);

  function buildCallback(jobId: string, opts: { signature?: string | null; header?: 'x-signalwire-signature' | 'x-twilio-signature'; url?: string; sid?: string } = {}) {
    const fax = [...faxes.values()].find((f) => f.status_callback && new URL(f.status_callback).searchParams.get('job_id') === jobId && (!opts.sid || f.sid === opts.sid));
    if (!fax?.status_callback) throw new Error(`no fax with a StatusCallback for job ${jobId}`);
    const params: Array<[string, string]> = [
      ['AccountSid', options.projectId],
      ['ApiVersion', 'v1'],
      ['FaxSid', fax.sid],
      ['FaxStatus', fax.status],
      ['From', fax.from],
      ['To', fax.to],
      ['MediaUrl', fax.media_url],
      ['NumPages', fax.num_pages === null ? '' : String(fax.num_pages)],
      ...(fax.error_code ? ([['ErrorCode', fax.error_code]] as Array<[string, string]>) : []),
      ...(fax.error_message ? ([['ErrorMessage', fax.error_message]] as Array<[string, string]>) : []),
    ];
    const url = fax.status_callback;
    const body = Buffer.from(new URLSearchParams(params).toString());
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    const signature = opts.signature === undefined ? signProviderCCallback(opts.url ?? url, params, options.apiToken) : opts.signature;
    if (signature !== null) headers[opts.header ?? 'x-signalwire-signature'] = signature;
    return { url, body, headers };
  }

  return {
    url: origin,
    baseUrl: `${origin}${API}`,
    sends,
    faxes,
    listQueries,
    failNext: (n, status = 503, retryAfter) => failing.arm(n, { status, ...(retryAfter !== undefined ? { retryAfter } : {}) }),
    hangAfterAccept: (n) => hanging.arm(n),
    garbleAfterAccept: (n) => garbling.arm(n),
    setStatus(sid, raw, pages, err) {
      const fax = faxes.get(sid);
      if (!fax) throw new Error(`no fax ${sid}`);
      fax.status = raw;
      if (pages !== undefined) fax.num_pages = pages;
      fax.error_code = err?.code ?? null;
      fax.error_message = err?.message ?? null;
      fax.date_updated = new Date().toUTCString();
    },
    buildCallback,
    async postCallback(jobId, sid) {
      const { url, body, headers } = buildCallback(jobId, sid ? { sid } : {});
      return fetch(url, { method: 'POST', headers, body: new Uint8Array(body) });
    },
    close: () => closeServer(server),
  };
}
