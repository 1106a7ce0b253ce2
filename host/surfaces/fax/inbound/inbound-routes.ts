import type { Request, Response } from 'express';
import { z } from 'zod';
import type { FaxConfig } from '../fax-settings.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { principalOf } from '../../../platform/auth/access-guard.js';
import { grants } from '../../../platform/auth/scopes.js';
import type { DocumentTokens } from '../jobs/document-tokens.js';
import { inboundView } from './inbound-view.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { decodeCursor, encodeCursor, PageQuery } from '../../../platform/http/cursor.js';
import { sendStoredPdf } from '../../../platform/http/stored-pdf.js';
import { INBOUND_TOKEN_SCOPE, type InboundService } from './inbound-service.js';
import type { InboundStore } from './inbound-store.js';
import { httpError } from '../../../platform/http/error-catalogue.js';
import { faxErrors } from '../fax-errors.js';
import { callerMailboxes, inMailboxes } from '../mailboxes/mailbox-limit.js';
import type { InboundRow } from './inbound-store.js';

export const InboundFaxSchema = z.object({
  id: z.string().describe('Our id (UUID)'),
  provider: z.string().describe('Id of the fax plugin that received it (GET /plugins lists them)'),
  provider_id: z.string().describe("The provider's id of the fax (the PBX's uniqueid)"),
  from: z.string().nullable().describe('Calling number; masked to the last four digits unless the caller holds inbound:read'),
  to: z.string().nullable().describe('Called number; masked like from'),
  status: z.string().describe("The provider's status word as received (e.g. success, received)"),
  pages: z.number().int().nullable().describe('Pages of the stored PDF'),
  source_type: z.string().nullable().describe('pdf | tiff: what the provider delivered'),
  size_bytes: z.number().int().nullable().describe('Size of the delivered document'),
  received_at: z.string().describe('ISO 8601'),
  mailbox: z.string().nullable().describe('The mailbox its called number routed it to (GET /admin/mailboxes); null for faxes received before mailboxes existed'),
  deleted_at: z.string().optional().describe('ISO 8601: its document was deleted on request (DELETE /inbound/{id}); the PDF answers 410'),
  pdf_url: z.string().optional().describe('GET /inbound/{id} only: a tokenized download link valid INBOUND_TOKEN_TTL_MINUTES'),
});
const Phone = z.string().trim().regex(/^\+?\d{1,20}$/, 'a number is an optional "+" and digits');
const ListQuery = z.object({
  to: Phone.optional(),
  from: Phone.optional(),
  status: z.string().max(50).optional(),
  mailbox: z.string().max(64).optional().describe('Only faxes routed to this mailbox'),
  since: z.iso.datetime({ offset: true }).optional().describe('Received at or after (ISO 8601)'),
  ...PageQuery,
});
const IdParams = z.object({ id: z.string().min(1).max(100) });

export interface InboundRouteDeps {
  service: InboundService;
  store: InboundStore;
  config: FaxConfig;
  tokens: DocumentTokens;
  audit: AuditLog;
}

/** The inbound listing and downloads (the hooks that receive faxes are in host/surfaces/fax/webhooks). */
export function registerInboundRoutes(api: HttpApi, deps: InboundRouteDeps): void {
  const { config, service, store, audit } = deps;
  const enabled = () => {
    if (!config.get('INBOUND_ENABLED')) throw faxErrors.error('inbound_disabled');
  };
  const view = inboundView;

  api.route(
    {
      method: 'get',
      path: '/inbound',
      summary: 'Inbound faxes, newest first (numbers masked unless the caller also holds inbound:read)',
      mcp: { name: 'list_inbound', description: 'Received faxes, newest first, numbers masked' },
      tags: ['inbound'],
      access: { scope: 'inbound:list' },
      rateLimit: { bucket: 'inbound_list', perMinute: () => config.get('INBOUND_LIST_RPM') },
      query: ListQuery,
      errors: ['inbound_disabled'],
      responses: { 200: { description: 'A page', schema: z.object({ faxes: z.array(InboundFaxSchema), next_cursor: z.string().nullable() }) } },
    },
    async ({ query, res }) => {
      enabled();
      const full = grants(principalOf(res).scopes, 'inbound:read');
      // Filtering by a number would confirm the number the masked listing hides.
      if ((query.to || query.from) && !full) throw httpError('insufficient_scope', { scope: 'inbound:read', use: 'filtering by number' });
      const cursor = decodeCursor<number>(query.cursor, 'number');
      const rows = await store.list({ to: query.to, from: query.from, status: query.status, mailbox: query.mailbox, mailboxes: callerMailboxes(res), since: query.since ? Date.parse(query.since) : undefined }, query.limit + 1, cursor);
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
      mcp: { name: 'get_inbound', description: 'One received fax with a short-lived PDF link, numbers masked', aliases: { inbound_id: 'id' } },
      tags: ['inbound'],
      access: { scope: 'inbound:read' },
      rateLimit: { bucket: 'inbound_get', perMinute: () => config.get('INBOUND_GET_RPM') },
      params: IdParams,
      errors: ['inbound_disabled', 'inbound_fax_not_found'],
      responses: { 200: { description: 'The fax', schema: InboundFaxSchema } },
    },
    async ({ params, res }) => {
      enabled();
      const row = await visibleInbound(params.id, res);
      audit.record('inbound_read', { inbound_id: row.id, by: principalOf(res).keyId ?? principalOf(res).kind });
      const token = deps.tokens.issue(INBOUND_TOKEN_SCOPE, row.id, config.get('INBOUND_TOKEN_TTL_MINUTES') * 60_000);
      return { ...view(row, true), pdf_url: `/inbound/${encodeURIComponent(row.id)}/pdf?token=${token}` };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/inbound/:id/pdf',
      accessNote: '`inbound:read` or a `?token=` (INBOUND_TOKEN_TTL_MINUTES)',
      summary: 'The PDF of an inbound fax, by `?token=` or by an API key with inbound:read',
      description: 'Access: a token from GET /inbound/{id} (valid INBOUND_TOKEN_TTL_MINUTES), or header X-API-Key with scope `inbound:read`.',
      tags: ['inbound'],
      access: 'public',
      rateLimit: { bucket: 'inbound_get', perMinute: () => config.get('INBOUND_GET_RPM') },
      params: IdParams,
      query: z.object({ token: z.string().max(200).optional() }),
      // without a valid token the route checks the key itself (requireInboundRead)
      errors: ['unauthorized', 'token_invalid', 'insufficient_scope', 'inbound_disabled', 'inbound_fax_not_found', 'document_expired', 'document_deleted', 'plugin_not_available'],
      responses: { 200: { description: 'The PDF', contentType: 'application/pdf' } },
    },
    async ({ params, query, req, res }) => {
      enabled();
      const row = await store.get(params.id);
      const byToken = !!row && deps.tokens.verify(INBOUND_TOKEN_SCOPE, row.id, query.token);
      if (!byToken) requireInboundRead(req, res, query.token !== undefined);
      // A token was issued for this fax to a key that could see it; a key is held to its mailboxes.
      if (row && !byToken && !inMailboxes(callerMailboxes(res), row.mailbox)) throw faxErrors.error('inbound_fax_not_found', { id: params.id });
      if (row?.deleted_at) throw faxErrors.error('document_deleted');
      if (!row || !row.pdf_key) throw faxErrors.error('inbound_fax_not_found', { id: params.id });
      await service.withStorage((storage) => sendStoredPdf(storage, row.pdf_key!, res, { filename: `inbound-${row.id}.pdf`, disposition: 'inline' }));
      audit.record('inbound_pdf_served', { inbound_id: row.id, via: byToken ? 'token' : 'key', by: principalOf(res).keyId });
    },
  );

  /** The fax, or not found when absent or outside the caller's mailboxes (so ids of other mailboxes do not leak). */
  async function visibleInbound(id: string, res: Response): Promise<InboundRow> {
    const row = await store.get(id);
    if (!row || !inMailboxes(callerMailboxes(res), row.mailbox)) throw faxErrors.error('inbound_fax_not_found', { id });
    return row;
  }

  /** Without a valid token the caller needs a key with inbound:read (or is local while no key exists). */
  function requireInboundRead(req: Request, res: Response, tokenGiven: boolean): void {
    const principal = principalOf(res);
    if (res.locals.invalidKey) throw httpError('unauthorized');
    if (principal.kind === 'anonymous') {
      if (tokenGiven) throw faxErrors.error('token_invalid');
      throw httpError('unauthorized');
    }
    if (!grants(principal.scopes, 'inbound:read')) {
      audit.record('scope_denied', { key_id: principal.keyId, scope: 'inbound:read', method: 'GET', path: req.route?.path as string | undefined });
      throw httpError('insufficient_scope', { scope: 'inbound:read' });
    }
  }
}
