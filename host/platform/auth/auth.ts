import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ConfigRegistry } from '../config/registry.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { PlatformTables } from '../db/schema.js';
import type { HttpApi } from '../http/api.js';
import { createAccessGuard } from './access-guard.js';
import { createSiteGuard } from './request-site.js';
import { ApiKeyStore } from './api-key-store.js';
import { registerKeyRoutes } from './key-routes.js';
import { RateLimits } from './rate-limits.js';
import type { KeyLimitDeclarations } from './key-limits.js';

export interface Auth {
  keys: ApiKeyStore;
  limits: RateLimits;
  authRequired(): boolean;
  stop(): Promise<void>;
}

/** API keys, scopes and rate limits: installs the access guard and the key routes on `api`. */
export async function createAuth(
  api: HttpApi,
  deps: { config: ConfigRegistry; db: Kysely<PlatformTables>; pool?: pg.Pool | undefined; audit: AuditLog; logger: Logger; keyLimits?: KeyLimitDeclarations },
): Promise<Auth> {
  // Shared by several instances (PostgreSQL): each request reads its key's row.
  const keys = new ApiKeyStore(deps.db, () => deps.config.get('API_KEY_CACHE_SECONDS') * 1000, !!deps.pool);
  await keys.start();
  const limits = new RateLimits({
    pool: deps.pool,
    onStoreError: (err) => deps.logger.warn({ err: (err as Error).message }, 'rate-limit store failed; request let through'),
  });
  const { guard, authRequired } = createAccessGuard({ config: deps.config, keys, limits, audit: deps.audit });
  api.setGuard(guard);
  api.setSiteGuard(createSiteGuard(deps.config));
  registerKeyRoutes(api, { keys, audit: deps.audit, limits: deps.keyLimits ?? {} });
  return { keys, limits, authRequired, stop: () => keys.stop() };
}
