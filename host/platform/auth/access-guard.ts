import type { Request, Response } from 'express';
import type { ConfigRegistry } from '../config/registry.js';
import { isLoopback } from './loopback.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { AccessGuard, GuardedRoute } from '../http/api.js';
import type { HttpError } from '../http/errors.js';
import type { ApiKeyStore } from './api-key-store.js';
import { scopesOf } from './api-key-store.js';
import { parseLimits, type KeyLimits } from './key-limits.js';
import { sameSecret } from './api-key-token.js';
import type { RateLimits } from './rate-limits.js';
import { grants } from './scopes.js';
import { httpError } from '../http/error-catalogue.js';

/**
 * Who is calling. `key`: a minted key; `bootstrap`: the API_KEY setting; `local`: a loopback
 * caller while nothing is secured (no API_KEY, no key minted, REQUIRE_API_KEY off);
 * `anonymous`: no key, on a public route.
 */
export interface Principal {
  kind: 'key' | 'bootstrap' | 'local' | 'anonymous';
  keyId?: string;
  scopes: readonly string[];
  rateLimitRpm?: number | null;
  /** A minted key's limits beside its scopes (key-limits.ts); absent or empty: none. */
  limits?: KeyLimits;
}

const EVERY_SCOPE: readonly string[] = ['admin'];
/** What MCP_API_KEY opens: every scope an MCP tool uses, no admin one. */
export const MCP_KEY_SCOPES: readonly string[] = ['fax:send', 'fax:read', 'inbound:list', 'inbound:read', 'search:read', 'search:answer', 'search:index'];


/** The principal the guard established for this request (set on every guarded route). */
export function principalOf(res: Response): Principal {
  return (res.locals.principal as Principal | undefined) ?? { kind: 'anonymous', scopes: [] };
}

/** The values the caller's key is confined to under a limit a surface declared; undefined when it is not limited by it. */
export function keyLimitOf(res: Response, name: string): readonly string[] | undefined {
  return principalOf(res).limits?.[name];
}

/** Who made a change, for audit records: the key id, or the kind of caller (`local`, ...). */
export function actorOf(res: Response): string {
  const principal = principalOf(res);
  return principal.keyId ?? principal.kind;
}

export interface AccessGuardDeps {
  config: ConfigRegistry;
  keys: ApiKeyStore;
  limits: RateLimits;
  audit: AuditLog;
}

/** Per-minute sampling of repeated audit events (key use, rate limiting). */
class Once {
  private readonly seen = new Map<string, number>();
  firstInMinute(id: string, now = Date.now()): boolean {
    const minute = Math.floor(now / 60_000);
    if (this.seen.get(id) === minute) return false;
    if (this.seen.size > 10_000) this.seen.clear();
    this.seen.set(id, minute);
    return true;
  }
}

export function createAccessGuard(deps: AccessGuardDeps): { guard: AccessGuard; authRequired: () => boolean } {
  const { config, keys, limits, audit } = deps;
  const keyUse = new Once();
  const limited = new Once();
  const failed = new Once();
  // Open by default for this machine only: any key (API_KEY or minted) turns keys on everywhere.
  const authRequired = () => !!config.get('API_KEY') || keys.anyMinted() || config.get('REQUIRE_API_KEY');

  /** The principal a presented X-API-Key proves; 'invalid' for a key that proves nothing. */
  async function fromHeader(req: Request): Promise<Principal | 'invalid' | undefined> {
    const header = req.headers['x-api-key'];
    if (header === undefined) return undefined;
    const token = Array.isArray(header) ? header[0] ?? '' : header;
    const bootstrap = config.get('API_KEY');
    if (bootstrap && sameSecret(token, bootstrap)) return { kind: 'bootstrap', keyId: 'bootstrap', scopes: EVERY_SCOPE };
    const mcpKey = config.get('MCP_API_KEY');
    if (mcpKey && sameSecret(token, mcpKey)) return { kind: 'bootstrap', keyId: 'mcp', scopes: MCP_KEY_SCOPES };
    const row = await keys.verify(token);
    if (!row) {
      if (failed.firstInMinute(`invalid:${req.socket.remoteAddress}`)) audit.record('auth_failed', { reason: 'invalid_key', key_id: keys.keyIdOf(token), path: req.path, ip: req.socket.remoteAddress });
      return 'invalid';
    }
    return { kind: 'key', keyId: row.key_id, scopes: scopesOf(row), rateLimitRpm: row.rate_limit_rpm, limits: parseLimits(row.limits) };
  }

  async function rateLimit(route: GuardedRoute, principal: Principal, req: Request): Promise<void> {
    if (!route.rateLimit) return;
    const { bucket, perMinute } = route.rateLimit;
    const caller = principal.keyId ? `key:${principal.keyId}` : `ip:${req.socket.remoteAddress ?? 'unknown'}`;
    const decision = await limits.consume(bucket, caller, principal.rateLimitRpm ?? perMinute?.() ?? config.get('MAX_REQUESTS_PER_MINUTE'));
    if (decision.allowed) return;
    if (limited.firstInMinute(`${bucket}:${caller}`)) {
      audit.record('rate_limited', { bucket, key_id: principal.keyId, ip: principal.keyId ? undefined : req.socket.remoteAddress, path: route.path, limit: decision.limit });
    }
    throw httpError('rate_limited', { limit: decision.limit }).withHeaders({ 'Retry-After': String(decision.retryAfterSeconds) });
  }

  const guard: AccessGuard = async (access, req, res, route) => {
    const presented = await fromHeader(req);
    if (access === 'public') {
      // A bad key does not block a public route (its own check, e.g. a token, decides).
      const local = !authRequired() && isLoopback(req);
      const principal = presented && presented !== 'invalid' ? presented : local ? { kind: 'local' as const, scopes: EVERY_SCOPE } : { kind: 'anonymous' as const, scopes: [] };
      res.locals.principal = principal;
      res.locals.invalidKey = presented === 'invalid';
      await rateLimit(route, principal, req);
      return;
    }
    if (access === 'loopback' && !isLoopback(req)) throw httpError('loopback_only');
    if (presented === 'invalid') throw httpError('unauthorized', { reason: 'the X-API-Key sent is unknown, revoked or expired' });
    let principal: Principal;
    if (presented) principal = presented;
    else if (authRequired()) throw missingKey(req);
    else if (!isLoopback(req)) {
      auditMissingKey(req);
      throw httpError('loopback_only', { reason: 'no API key exists yet: this gateway answers callers on this machine only (mint an admin key there, or set API_KEY)' });
    } else principal = { kind: 'local', scopes: EVERY_SCOPE };
    res.locals.principal = principal;
    await rateLimit(route, principal, req);
    // Loopback-only routes (containers, dev status) need an admin key once keys exist.
    const scope = access === 'loopback' ? 'admin' : access.scope;
    if (!grants(principal.scopes, scope)) {
      audit.record('scope_denied', { key_id: principal.keyId, scope, method: route.method.toUpperCase(), path: route.path });
      throw httpError('insufficient_scope', { scope });
    }
    if (principal.keyId) {
      if (principal.kind === 'key') keys.touch(principal.keyId);
      if (keyUse.firstInMinute(principal.keyId)) audit.record('key_used', { key_id: principal.keyId, method: route.method.toUpperCase(), path: route.path });
    }
  };

  function auditMissingKey(req: Request): void {
    // Sampled per caller and minute: a flood of bad requests must not become a flood of writes.
    if (failed.firstInMinute(`missing:${req.socket.remoteAddress}`)) audit.record('auth_failed', { reason: 'missing_key', path: req.path, ip: req.socket.remoteAddress });
  }

  function missingKey(req: Request): HttpError {
    auditMissingKey(req);
    return httpError('unauthorized', { reason: keys.anyMinted() || config.get('API_KEY') ? 'keys exist: send X-API-Key' : 'REQUIRE_API_KEY is on: send X-API-Key' });
  }

  return { guard, authRequired };
}
