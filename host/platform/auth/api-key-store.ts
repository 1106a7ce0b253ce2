import type { Kysely, Selectable } from 'kysely';
import type { ApiKeyTable, PlatformTables } from '../db/schema.js';
import { hashToken, keyIdOf, matchesHash, newKeyId, newToken } from './api-key-token.js';
import { parseLimits, storedLimits, type KeyLimits } from './key-limits.js';

export interface ApiKeyMeta {
  key_id: string;
  name: string;
  owner: string | null;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rate_limit_rpm: number | null;
  limits: KeyLimits;
}

export interface NewApiKey {
  name: string;
  owner?: string | undefined;
  scopes: string[];
  expiresAt?: string | undefined;
  rateLimitRpm?: number | undefined;
  limits?: KeyLimits | undefined;
}

type Row = Selectable<ApiKeyTable>;

/** How often last-used times are written (batched: one UPDATE per used key per period). */
export const LAST_USED_FLUSH_MS = 15_000;
/** An unknown key id reloads the cache at most this often (a key minted on another instance). */
const MISS_RELOAD_MS = 1_000;

/**
 * API keys: rows in `api_keys` holding a SHA-256 of the token, never the token. With one
 * process (SQLite) verification reads an in-memory copy of every key, reloaded on each change.
 * Shared (PostgreSQL, several instances) every verification reads its key's row, so a key
 * revoked or rotated on one instance is refused by every other at once; the copy, reloaded
 * every `refreshMs`, then only says whether any key exists.
 */
export class ApiKeyStore {
  private cache = new Map<string, Row>();
  private loadedAt = 0;
  private missReloadAt = 0;
  private loading?: Promise<void>;
  private readonly lastUsed = new Map<string, string>();
  private timer?: NodeJS.Timeout;
  private lastFlush = Date.now();

  constructor(
    private readonly db: Kysely<PlatformTables>,
    private readonly refreshMs: () => number,
    private readonly shared = false,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    const tick = async () => {
      if (Date.now() - this.loadedAt >= this.refreshMs()) await this.reload().catch(() => {});
      if (Date.now() - this.lastFlush >= LAST_USED_FLUSH_MS) await this.flushLastUsed().catch(() => {});
    };
    this.timer = setInterval(() => void tick(), 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flushLastUsed();
  }

  /** True once any key was minted (revoked ones count): every non-public route then needs a key. */
  anyMinted(): boolean {
    return this.cache.size > 0;
  }

  /** The live record a token proves, or undefined (unknown, wrong secret, revoked, expired). */
  async verify(token: string, now = Date.now()): Promise<Row | undefined> {
    const keyId = keyIdOf(token);
    if (!keyId) return undefined;
    let row = this.shared ? await this.readRow(keyId) : this.cache.get(keyId);
    if (!row && !this.shared && now - this.missReloadAt >= MISS_RELOAD_MS) {
      this.missReloadAt = now;
      await this.reload();
      row = this.cache.get(keyId);
    }
    if (!row || !matchesHash(token, row.secret_hash)) return undefined;
    if (row.revoked_at) return undefined;
    if (row.expires_at && Date.parse(row.expires_at) <= now) return undefined;
    return row;
  }

  // The row as stored now; the copy follows it (a key minted elsewhere counts at once).
  private async readRow(keyId: string): Promise<Row | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    if (row) this.cache.set(keyId, row);
    return row;
  }

  /** The key id a token names (whether or not it is valid), for audit records. */
  keyIdOf(token: string): string | undefined {
    return keyIdOf(token);
  }

  touch(keyId: string, now = new Date()): void {
    this.lastUsed.set(keyId, now.toISOString());
  }

  async mint(input: NewApiKey, now = new Date()): Promise<{ meta: ApiKeyMeta; token: string }> {
    const keyId = newKeyId();
    const token = newToken(keyId);
    const row: Row = {
      key_id: keyId,
      name: input.name,
      owner: input.owner ?? null,
      scopes: JSON.stringify(input.scopes),
      secret_hash: hashToken(token),
      created_at: now.toISOString(),
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      last_used_at: null,
      rate_limit_rpm: input.rateLimitRpm ?? null,
      limits: storedLimits(input.limits),
    };
    await this.db.insertInto('api_keys').values(row).execute();
    await this.reloadAfterWrite();
    return { meta: toMeta(row), token };
  }

  async list(): Promise<ApiKeyMeta[]> {
    await this.flushLastUsed();
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created_at').orderBy('key_id').execute();
    return rows.map(toMeta);
  }

  async get(keyId: string): Promise<ApiKeyMeta | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_id', '=', keyId).executeTakeFirst();
    return row ? toMeta(row) : undefined;
  }

  /** Marks the key revoked; undefined when there is no such key. Revoking twice is a no-op. */
  async revoke(keyId: string, now = new Date()): Promise<ApiKeyMeta | undefined> {
    await this.db.updateTable('api_keys').set({ revoked_at: now.toISOString() }).where('key_id', '=', keyId).where('revoked_at', 'is', null).execute();
    await this.reloadAfterWrite();
    return this.get(keyId);
  }

  /** Replaces a live key's limits (none: unlimited). Undefined when absent or revoked. */
  async setLimits(keyId: string, limits: KeyLimits): Promise<ApiKeyMeta | undefined> {
    const r = await this.db.updateTable('api_keys').set({ limits: storedLimits(limits) }).where('key_id', '=', keyId).where('revoked_at', 'is', null).executeTakeFirst();
    await this.reloadAfterWrite();
    return Number(r.numUpdatedRows) === 1 ? this.get(keyId) : undefined;
  }

  /** A new secret for a live key; the old token stops working. Undefined when absent or revoked. */
  async rotate(keyId: string): Promise<{ meta: ApiKeyMeta; token: string } | undefined> {
    const token = newToken(keyId);
    const r = await this.db
      .updateTable('api_keys')
      .set({ secret_hash: hashToken(token) })
      .where('key_id', '=', keyId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await this.reloadAfterWrite();
    if (Number(r.numUpdatedRows) !== 1) return undefined;
    const meta = await this.get(keyId);
    return meta ? { meta, token } : undefined;
  }

  /**
   * Reloads after a write of this instance: queued behind a load already running, which may
   * have read the rows before the write.
   */
  private reloadAfterWrite(): Promise<void> {
    const running = this.loading;
    return running ? running.catch(() => {}).then(() => this.reload()) : this.reload();
  }

  /** Reloads the cache from the database (one load at a time). */
  reload(): Promise<void> {
    this.loading ??= (async () => {
      try {
        const rows = await this.db.selectFrom('api_keys').selectAll().execute();
        this.cache = new Map(rows.map((r) => [r.key_id, r]));
        this.loadedAt = Date.now();
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  async flushLastUsed(): Promise<void> {
    this.lastFlush = Date.now();
    const pending = [...this.lastUsed];
    this.lastUsed.clear();
    for (const [keyId, at] of pending) {
      await this.db.updateTable('api_keys').set({ last_used_at: at }).where('key_id', '=', keyId).execute();
    }
  }
}

export function toMeta(row: Row): ApiKeyMeta {
  return {
    key_id: row.key_id,
    name: row.name,
    owner: row.owner,
    scopes: JSON.parse(row.scopes) as string[],
    created_at: row.created_at,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    rate_limit_rpm: row.rate_limit_rpm,
    limits: parseLimits(row.limits),
  };
}

export function scopesOf(row: Row): string[] {
  return JSON.parse(row.scopes) as string[];
}
