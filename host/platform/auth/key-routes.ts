import type { Response } from 'express';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import type { HttpApi } from '../http/api.js';
import { principalOf } from './access-guard.js';
import type { ApiKeyStore } from './api-key-store.js';
import { grants, isScope, SCOPE_NAMES } from './scopes.js';
import { keyLimitsSchema, limitsBeyondCaller, type KeyLimitDeclarations, type KeyLimits } from './key-limits.js';
import { httpError, invalid } from '../http/error-catalogue.js';

export const ApiKeyMetaSchema = z.object({
  key_id: z.string().describe('16 hex digits; the token is sbk_<key_id>_<secret>'),
  name: z.string(),
  owner: z.string().nullable(),
  scopes: z.array(z.string()),
  created_at: z.string().describe('ISO 8601'),
  expires_at: z.string().nullable().describe('ISO 8601; null never expires'),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable().describe('Batched: up to 15 s behind'),
  rate_limit_rpm: z.number().int().nullable().describe('Per-minute limit of this key in every rate-limited bucket; null uses the settings'),
  limits: z.record(z.string(), z.array(z.string())).describe('Limits beside the scopes; empty: none'),
});
const MintedSchema = ApiKeyMetaSchema.extend({ token: z.string().describe('Shown once; store it now') });
const mintBody = (limits: z.ZodType<KeyLimits>) => z
  .object({
    name: z.string().trim().min(1).max(100),
    owner: z.string().trim().min(1).max(200).optional(),
    scopes: z.array(z.string().max(50)).min(1).max(SCOPE_NAMES.length).describe(`Any of: ${SCOPE_NAMES.join(', ')}`),
    expires_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601, in the future'),
    rate_limit_rpm: z.number().int().min(1).max(1_000_000).optional(),
    limits: limits.optional(),
  })
  .strict();
const KeyParams = z.object({ keyId: z.string().regex(/^[0-9a-f]{16}$/, 'a key id is 16 hex digits') });
const MANAGE = { scope: 'keys:manage', administrative: true } as const;

/** POST/GET /admin/api-keys, PATCH and DELETE /admin/api-keys/:keyId, POST /admin/api-keys/:keyId/rotate. */
export function registerKeyRoutes(api: HttpApi, deps: { keys: ApiKeyStore; audit: AuditLog; limits: KeyLimitDeclarations }): void {
  const { keys, audit } = deps;
  const LimitsBody = keyLimitsSchema(deps.limits) as z.ZodType<KeyLimits>;
  const limitNames = Object.keys(deps.limits).map((n) => `\`${n}\``).join(', ') || 'none declared';
  /** A caller confined by limits hands on only the same or narrower ones. */
  const assertWithinCallerLimits = (wanted: KeyLimits, res: Response) => {
    const beyond = limitsBeyondCaller(principalOf(res).limits ?? {}, wanted);
    if (beyond.length) throw httpError('limit_beyond_caller', { limits: beyond });
  };
  const actor = (res: Response) => principalOf(res).keyId ?? principalOf(res).kind;
  /** A caller may revoke or rotate only keys whose scopes it holds itself, as at mint. */
  const assertManageable = async (keyId: string, res: Response) => {
    const target = await keys.get(keyId);
    if (!target) throw httpError('api_key_not_found');
    const beyond = target.scopes.filter((s) => !grants(principalOf(res).scopes, s));
    if (beyond.length) throw httpError('scope_beyond_caller', { verb: 'manage a key with', scopes: beyond });
  };

  const routes = api.group({ tags: ['admin', 'auth'], access: MANAGE });

  routes.route(
    {
      method: 'post',
      path: '/admin/api-keys',
      summary: 'Mint an API key; the token is returned once',
      description:
        'A caller can grant only scopes it holds itself (`admin` holds all). Unknown scopes answer 422 naming them. ' +
        'The first key minted without API_KEY (from this machine, nothing secured yet) must include `admin`: once a key exists, ' +
        'admin routes need one, so a first key without `admin` would lock the operator out; it is refused with 409 `would_lock_out`. ' +
        `\`limits\` confine the key beyond its scopes (${limitNames}); a caller with limits can give only the same or narrower ones.`,
      body: mintBody(LimitsBody),
      errors: ['scope_beyond_caller', 'limit_beyond_caller', 'would_lock_out'],
      responses: { 201: { description: 'Minted', schema: MintedSchema } },
    },
    async ({ body, res }) => {
      const scopes = [...new Set(body.scopes)];
      const unknown = scopes.filter((s) => !isScope(s));
      if (unknown.length) throw invalid('scopes', `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')} (known: ${SCOPE_NAMES.join(', ')})`);
      // A `local` caller is the loopback operator of a gateway with no API_KEY and no key yet.
      // The first key turns key checks on for admin routes: it must be a key that can use them.
      if (principalOf(res).kind === 'local' && !scopes.includes('admin')) {
        throw httpError('would_lock_out');
      }
      const held = principalOf(res).scopes;
      const beyond = scopes.filter((s) => !grants(held, s));
      if (beyond.length) throw httpError('scope_beyond_caller', { verb: 'grant', scopes: beyond });
      if (body.expires_at && Date.parse(body.expires_at) <= Date.now()) throw invalid('expires_at', 'must be in the future');
      assertWithinCallerLimits(body.limits ?? {}, res);
      const { meta, token } = await keys.mint({
        name: body.name,
        owner: body.owner,
        scopes,
        expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : undefined,
        rateLimitRpm: body.rate_limit_rpm,
        limits: body.limits,
      });
      audit.record('key_minted', { key_id: meta.key_id, scopes: scopes.join(' '), limits: describeLimits(meta.limits), by: actor(res) });
      res.status(201);
      return { ...meta, token };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/api-keys',
      summary: 'Every key, metadata only (never the token or its hash)',
      responses: { 200: { description: 'Keys', schema: z.object({ keys: z.array(ApiKeyMetaSchema) }) } },
    },
    async () => ({ keys: await keys.list() }),
  );

  routes.route(
    {
      method: 'delete',
      path: '/admin/api-keys/:keyId',
      summary: 'Revoke a key (it stops working at once, on every instance)',
      params: KeyParams,
      errors: ['api_key_not_found', 'scope_beyond_caller'],
      responses: { 200: { description: 'Revoked', schema: ApiKeyMetaSchema } },
    },
    async ({ params, res }) => {
      await assertManageable(params.keyId, res);
      const meta = await keys.revoke(params.keyId);
      if (!meta) throw httpError('api_key_not_found');
      audit.record('key_revoked', { key_id: meta.key_id, by: actor(res) });
      return meta;
    },
  );

  routes.route(
    {
      method: 'patch',
      path: '/admin/api-keys/:keyId',
      summary: "Replace a key's limits (`{}` lifts them); it takes effect on the key's next request",
      params: KeyParams,
      body: z.object({ limits: LimitsBody }).strict(),
      errors: ['api_key_not_found', 'api_key_revoked', 'scope_beyond_caller', 'limit_beyond_caller'],
      responses: { 200: { description: 'Changed', schema: ApiKeyMetaSchema } },
    },
    async ({ params, body, res }) => {
      await assertManageable(params.keyId, res);
      assertWithinCallerLimits(body.limits, res);
      const meta = await keys.setLimits(params.keyId, body.limits);
      if (!meta) throw httpError('api_key_revoked');
      audit.record('key_limits_changed', { key_id: meta.key_id, limits: describeLimits(meta.limits), by: actor(res) });
      return meta;
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/api-keys/:keyId/rotate',
      summary: 'Replace the secret of a key; the new token is returned once and the old one stops working',
      params: KeyParams,
      errors: ['api_key_not_found', 'api_key_revoked', 'scope_beyond_caller'],
      responses: { 200: { description: 'Rotated', schema: MintedSchema } },
    },
    async ({ params, res }) => {
      await assertManageable(params.keyId, res);
      const rotated = await keys.rotate(params.keyId);
      if (!rotated) {
        const meta = await keys.get(params.keyId);
        throw meta ? httpError('api_key_revoked') : httpError('api_key_not_found');
      }
      audit.record('key_rotated', { key_id: rotated.meta.key_id, by: actor(res) });
      return { ...rotated.meta, token: rotated.token };
    },
  );
}

/** Limits as one audit field: `name=a,b; other=c`, undefined when none. */
function describeLimits(limits: KeyLimits): string | undefined {
  const parts = Object.entries(limits).map(([name, values]) => `${name}=${values.join(',')}`);
  return parts.length ? parts.join('; ') : undefined;
}
