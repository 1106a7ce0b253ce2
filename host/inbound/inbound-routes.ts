import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { ConfigRegistry } from '../config/registry.js';
import type { Kernel } from '../../core/kernel/kernel.js';
import type { AuditLog } from '../audit/audit-log.js';
import { INVALID_KEY, principalOf } from '../auth/access-guard.js';
import { grants } from '../auth/scopes.js';
import type { DocumentTokens } from '../fax/document-tokens.js';
import { maskPhone } from '../fax/phone.js';
import type { HttpApi } from '../http/api.js';
import { decodeCursor, encodeCursor, PageQuery } from '../http/cursor.js';
import { ErrorCodes, HttpError } from '../http/errors.js';
import { readRawBody } from '../http/raw-body.js';
import { sendStoredPdf } from '../http/stored-pdf.js';
import { fetchMedia, mediaHosts } from './media-fetch.js';
import { INBOUND_TOKEN_SCOPE, type InboundNotice, type InboundService } from './inbound-service.js';
import type { InboundRow, InboundStore } from './inbound-store.js';
import { basicMatches, hmacMatches, sameSecret } from './webhook-auth.js';

export const InboundFaxSchema = z.object({
  id: z.string().describe('Our id (UUID)'),
  provider: z.enum(['providera', 'providerb', 'pbx']),
  provider_id: z.string().describe("The provider's id of the fax (the PBX's uniqueid)"),
  from: z.string().nullable().describe('Calling number; masked to the last four digits unless the caller holds inbound:read'),
  to: z.string().nullable().describe('Called number; masked like from'),
  status: z.string().describe("The provider's status word as received (e.g. success, received)"),
  pages: z.number().int().nullable().describe('Pages of the stored PDF'),
  source_type: z.string().nullable().describe('pdf | tiff: what the provider delivered'),
  size_bytes: z.number().int().nullable().describe('Size of the delivered document'),
  received_at: z.string().describe('ISO 8601'),
  pdf_url: z.string().optional().describe('GET /inbound/{id} only: a tokenized download link valid INBOUND_TOKEN_TTL_MINUTES'),
});
const HookAnswer = z.object({ ok: z.literal(true), id: z.string(), duplicate: z.boolean().describe('True for a replay: nothing new was stored') });

const Phone = z.string().trim().regex(/^\+?\d{1,20}$/, 'a number is an optional "+" and digits');
const ProviderAHook = z.object({
  fax: z.object({
    id: z.union([z.number().int(), z.string().min(1).max(100)]),
    from: z.string().max(40).optional(),
    to: z.string().max(40).optional(),
    num_pages: z.number().int().min(0).optional(),
    status: z.string().max(50).default('received'),
    file_url: z.string().max(2000),
  }),
});
const ProviderBHook = z.object({
  id: z.string().min(1).max(100),
  from: z.string().max(40).optional(),
  to: z.string().max(40).optional(),
  num_pages: z.number().int().min(0).optional(),
  status: z.string().max(50).default('received'),
  file_url: z.string().max(2000),
});
const PbxHook = z.object({
  tiff_path: z.string().min(1).max(4096),
  to_number: z.string().min(1).max(40),
  from_number: z.string().max(40).optional(),
  faxstatus: z.string().max(50).optional(),
  faxpages: z.coerce.number().int().min(0).optional(),
  uniqueid: z.string().min(1).max(100),
});
const ListQuery = z.object({
  to: Phone.optional(),
  from: Phone.optional(),
  status: z.string().max(50).optional(),
  since: z.iso.datetime({ offset: true }).optional().describe('Received at or after (ISO 8601)'),
  ...PageQuery,
});
const IdParams = z.object({ id: z.string().min(1).max(100) });

export interface InboundRouteDeps {
  service: InboundService;
  store: InboundStore;
  kernel: Kernel;
  config: ConfigRegistry;
  tokens: DocumentTokens;
  audit: AuditLog;
  /** The gateway's environment: PROVIDERA_API_SECRET and *_BASE_URL when the plugin is not active. */
  env: NodeJS.ProcessEnv;
}

/** The inbound hooks (provider A, provider B, the PBX) and the inbound listing and downloads. */
export function registerInboundRoutes(api: HttpApi, deps: InboundRouteDeps): void {
  const { config, service, store, audit } = deps;
  const enabled = () => {
    if (!config.get('INBOUND_ENABLED')) throw new HttpError(404, 'inbound is disabled');
  };
  const maxBytes = () => config.get('MAX_FILE_SIZE_MB') * 1024 * 1024;
  // A provider's own settings (its active generation), else its environment variable.
  const pluginSetting = (id: 'providera' | 'providerb', key: 'apiSecret' | 'baseUrl') =>
    deps.kernel.settingsOf(id)?.[key] ?? deps.env[`${id.toUpperCase()}_${key === 'apiSecret' ? 'API_SECRET' : 'BASE_URL'}`];
  const reject = (provider: string, reason: string, status: number, detail: string): never => {
    audit.record('inbound_rejected', { provider, reason });
    throw new HttpError(status, detail);
  };
  const parse = <T extends z.ZodType>(schema: T, raw: Buffer): z.infer<T> => {
    let value: unknown;
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new HttpError(400, 'request body is not valid JSON');
    }
    const result = schema.safeParse(value);
    if (!result.success) throw new HttpError(422, result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    return result.data;
  };
  const download = (provider: 'providera' | 'providerb', url: string) => () =>
    fetchMedia(url, {
      allowedHosts: mediaHosts(config.get(provider === 'providera' ? 'PROVIDERA_MEDIA_HOSTS' : 'PROVIDERB_MEDIA_HOSTS'), pluginSetting(provider, 'baseUrl')),
      maxBytes: maxBytes(),
      timeoutMs: config.get('INBOUND_MEDIA_TIMEOUT_SECONDS') * 1000,
      onDenied: (u) => audit.record('inbound_rejected', { provider, reason: 'media_host', host: u.host }),
    });
  const answer = async (notice: InboundNotice) => {
    const { row, duplicate } = await service.receive(notice);
    return { ok: true as const, id: row.id, duplicate };
  };
  const hookResponses = {
    200: { description: 'Stored, or already stored (a replay)', schema: HookAnswer },
    400: { description: 'Body is not JSON' },
    401: { description: 'Bad or missing signature / credentials' },
    404: { description: 'Inbound is disabled' },
    413: { description: 'Document over MAX_FILE_SIZE_MB' },
    422: { description: 'Malformed notice, a media URL on a host that is not allowed, or a document that is neither PDF nor TIFF' },
    502: { description: 'The media host failed' },
    503: { description: 'A secret or media host this hook needs is not configured' },
  };

  api.route(
    {
      method: 'post',
      path: '/providera-inbound',
      summary: 'Inbound fax notice of provider A (JSON `{"fax": {...}}`)',
      description: 'X-ProviderA-Signature (HMAC-SHA256 of the raw body with the provider A API secret) is checked unless PROVIDERA_INBOUND_VERIFY_SIGNATURE=false. The document is fetched from file_url only on PROVIDERA_MEDIA_HOSTS.',
      tags: ['inbound', 'webhooks'],
      access: 'public',
      rawBody: { contentType: 'application/json', schema: ProviderAHook },
      responses: hookResponses,
    },
    async ({ req }) => {
      enabled();
      const raw = await readRawBody(req);
      if (config.get('PROVIDERA_INBOUND_VERIFY_SIGNATURE')) {
        const secret = pluginSetting('providera', 'apiSecret');
        if (typeof secret !== 'string' || !secret) reject('providera', 'no_secret', 503, 'provider A API secret is not configured (PROVIDERA_API_SECRET)');
        if (!hmacMatches(raw, secret as string, header(req, 'x-providera-signature'))) reject('providera', 'signature', 401, 'invalid or missing signature');
      }
      const { fax } = parse(ProviderAHook, raw);
      return answer({ provider: 'providera', providerId: String(fax.id), from: fax.from, to: fax.to, status: fax.status, pages: fax.num_pages, document: download('providera', fax.file_url) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/providerb-inbound',
      summary: 'Inbound fax notice of provider B (JSON)',
      description: 'HTTP Basic auth is required when PROVIDERB_INBOUND_BASIC_USER is set; X-ProviderB-Signature when PROVIDERB_INBOUND_HMAC_SECRET is set. The document is fetched from file_url only on PROVIDERB_MEDIA_HOSTS.',
      tags: ['inbound', 'webhooks'],
      access: 'public',
      rawBody: { contentType: 'application/json', schema: ProviderBHook },
      responses: hookResponses,
    },
    async ({ req }) => {
      enabled();
      const raw = await readRawBody(req);
      const user = config.get('PROVIDERB_INBOUND_BASIC_USER');
      if (user && !basicMatches(header(req, 'authorization'), user, config.get('PROVIDERB_INBOUND_BASIC_PASS') ?? '')) reject('providerb', 'basic_auth', 401, 'invalid or missing credentials');
      const hmac = config.get('PROVIDERB_INBOUND_HMAC_SECRET');
      if (hmac && !hmacMatches(raw, hmac, header(req, 'x-providerb-signature'))) reject('providerb', 'signature', 401, 'invalid or missing signature');
      const body = parse(ProviderBHook, raw);
      return answer({ provider: 'providerb', providerId: body.id, from: body.from, to: body.to, status: body.status, pages: body.num_pages, document: download('providerb', body.file_url) });
    },
  );

  api.route(
    {
      method: 'post',
      path: '/_internal/pbx/inbound',
      summary: 'Inbound fax from the PBX dialplan (X-Internal-Secret); the TIFF must lie inside PBX_SPOOL_DIR',
      tags: ['inbound', 'webhooks'],
      access: 'public',
      rawBody: { contentType: 'application/json', schema: PbxHook },
      responses: {
        ...hookResponses,
        400: { description: 'Body is not JSON, or tiff_path does not exist' },
        403: { description: 'tiff_path resolves outside PBX_SPOOL_DIR' },
      },
    },
    async ({ req }) => {
      enabled();
      const raw = await readRawBody(req);
      const secret = config.get('PBX_INBOUND_SECRET');
      if (!secret) reject('pbx', 'no_secret', 503, 'PBX_INBOUND_SECRET is not set');
      const given = header(req, 'x-internal-secret');
      if (given === undefined || !sameSecret(given, secret!)) reject('pbx', 'secret', 401, 'invalid or missing X-Internal-Secret');
      const body = parse(PbxHook, raw);
      const spool = config.get('PBX_SPOOL_DIR');
      if (!spool) reject('pbx', 'no_spool', 503, 'PBX_SPOOL_DIR is not set');
      const file = await spoolFile(spool!, body.tiff_path, maxBytes(), () => audit.record('inbound_rejected', { provider: 'pbx', reason: 'outside_spool' }));
      return answer({
        provider: 'pbx',
        providerId: body.uniqueid,
        from: body.from_number,
        to: body.to_number,
        status: body.faxstatus ?? 'received',
        pages: body.faxpages,
        document: () => readFile(file),
      });
    },
  );

  const view = (row: InboundRow, full: boolean) => ({
    id: row.id,
    provider: row.provider as 'providera' | 'providerb' | 'pbx',
    provider_id: row.provider_id,
    from: full ? row.from_number : row.from_number && maskPhone(row.from_number),
    to: full ? row.to_number : row.to_number && maskPhone(row.to_number),
    status: row.status,
    pages: row.pages,
    source_type: row.source_type,
    size_bytes: row.size_bytes,
    received_at: row.received_at,
  });

  api.route(
    {
      method: 'get',
      path: '/inbound',
      summary: 'Inbound faxes, newest first (numbers masked unless the caller also holds inbound:read)',
      tags: ['inbound'],
      access: { scope: 'inbound:list' },
      rateLimit: 'inbound_list',
      query: ListQuery,
      responses: {
        200: { description: 'A page', schema: z.object({ faxes: z.array(InboundFaxSchema), next_cursor: z.string().nullable() }) },
        400: { description: 'Bad filter or cursor' },
        404: { description: 'Inbound is disabled' },
      },
    },
    async ({ query, res }) => {
      enabled();
      const full = grants(principalOf(res).scopes, 'inbound:read');
      // Filtering by a number would confirm the number the masked listing hides.
      if ((query.to || query.from) && !full) throw new HttpError(403, 'filtering by number needs scope "inbound:read"', ErrorCodes.insufficientScope);
      const cursor = decodeCursor<number>(query.cursor, 'number');
      const rows = await store.list({ to: query.to, from: query.from, status: query.status, since: query.since ? Date.parse(query.since) : undefined }, query.limit + 1, cursor);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return { faxes: page.map((r) => view(r, full)), next_cursor: rows.length > query.limit && last ? encodeCursor(last.created_at, last.id) : null };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/inbound/:id',
      summary: 'One inbound fax, numbers in full, with a short-lived download link',
      tags: ['inbound'],
      access: { scope: 'inbound:read' },
      rateLimit: 'inbound_get',
      params: IdParams,
      responses: { 200: { description: 'The fax', schema: InboundFaxSchema }, 404: { description: 'Not found, or inbound is disabled' } },
    },
    async ({ params, res }) => {
      enabled();
      const row = await store.get(params.id);
      if (!row) throw new HttpError(404, 'inbound fax not found');
      audit.record('inbound_read', { inbound_id: row.id, by: principalOf(res).keyId ?? principalOf(res).kind });
      const token = deps.tokens.issue(INBOUND_TOKEN_SCOPE, row.id, config.get('INBOUND_TOKEN_TTL_MINUTES') * 60_000);
      return { ...view(row, true), pdf_url: `/inbound/${encodeURIComponent(row.id)}/pdf?token=${token}` };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/inbound/:id/pdf',
      summary: 'The PDF of an inbound fax, by `?token=` or by an API key with inbound:read',
      description: 'Access: a token from GET /inbound/{id} (valid INBOUND_TOKEN_TTL_MINUTES), or header X-API-Key with scope `inbound:read`.',
      tags: ['inbound'],
      access: 'public',
      rateLimit: 'inbound_get',
      params: IdParams,
      query: z.object({ token: z.string().max(200).optional() }),
      responses: {
        200: { description: 'The PDF', contentType: 'application/pdf' },
        401: { description: 'No token and no valid API key' },
        403: { description: 'Token invalid or expired, or the key lacks inbound:read' },
        404: { description: 'Not found, or inbound is disabled' },
      },
    },
    async ({ params, query, req, res }) => {
      enabled();
      const row = await store.get(params.id);
      const byToken = !!row && deps.tokens.verify(INBOUND_TOKEN_SCOPE, row.id, query.token);
      if (!byToken) requireInboundRead(req, res, query.token !== undefined);
      if (!row || !row.pdf_key) throw new HttpError(404, 'inbound fax not found');
      await service.withStorage((storage) => sendStoredPdf(storage, row.pdf_key!, res, { filename: `inbound-${row.id}.pdf`, disposition: 'inline', missing: 'document expired' }));
      audit.record('inbound_pdf_served', { inbound_id: row.id, via: byToken ? 'token' : 'key', by: principalOf(res).keyId });
    },
  );

  /** Without a valid token the caller needs a key with inbound:read (or open mode without keys). */
  function requireInboundRead(req: Request, res: Response, tokenGiven: boolean): void {
    const principal = principalOf(res);
    if (res.locals.invalidKey) throw new HttpError(401, INVALID_KEY);
    if (principal.kind === 'anonymous') {
      if (tokenGiven) throw new HttpError(403, 'token invalid or expired');
      if (principal.scopes.includes('inbound:read')) return; // no keys required: open, as /inbound/{id}
      throw new HttpError(401, INVALID_KEY);
    }
    if (!grants(principal.scopes, 'inbound:read')) {
      audit.record('scope_denied', { key_id: principal.keyId, scope: 'inbound:read', method: 'GET', path: req.route?.path as string | undefined });
      throw new HttpError(403, 'API key lacks scope "inbound:read"', ErrorCodes.insufficientScope);
    }
  }
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The real path of `given`, refused unless it lies inside the spool directory. */
async function spoolFile(spoolDir: string, given: string, maxBytes: number, onOutside: () => void): Promise<string> {
  let spool: string;
  let file: string;
  try {
    spool = await realpath(spoolDir);
  } catch {
    throw new HttpError(503, 'PBX_SPOOL_DIR does not exist');
  }
  try {
    file = await realpath(path.resolve(spool, given));
  } catch {
    throw new HttpError(400, 'tiff_path: no such file');
  }
  if (!file.startsWith(spool + path.sep)) {
    onOutside();
    throw new HttpError(403, 'tiff_path: outside the spool directory');
  }
  const info = await stat(file);
  if (!info.isFile()) throw new HttpError(400, 'tiff_path: not a file');
  if (info.size > maxBytes) throw new HttpError(413, `tiff_path: document over ${maxBytes} bytes`);
  return file;
}
