import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { FaxTables } from '../fax-tables.js';
import { SecretSeal } from '../../../platform/secrets/secret-seal.js';

const KV_KEY = 'document_token_secret';

/**
 * Short-lived tokens for document links (/fax/{id}/pdf, /inbound/{id}/pdf): bound to one
 * scope and id, carrying their expiry, signed with a secret shared by every instance through
 * the database.
 */
export class DocumentTokens {
  private constructor(private readonly secret: Buffer) {}

  static async load(db: Kysely<FaxTables>, seal: SecretSeal = new SecretSeal(undefined)): Promise<DocumentTokens> {
    const fresh = randomBytes(32).toString('base64');
    // The first instance to start writes the secret; the others read the same one.
    await db.insertInto('host_kv').values({ key: KV_KEY, value: seal.seal(fresh) }).onConflict((oc) => oc.column('key').doNothing()).execute();
    const row = await db.selectFrom('host_kv').select('value').where('key', '=', KV_KEY).executeTakeFirstOrThrow();
    const resealed = seal.reseal(row.value);
    if (resealed !== undefined) await db.updateTable('host_kv').set({ value: resealed }).where('key', '=', KV_KEY).where('value', '=', row.value).execute();
    return new DocumentTokens(Buffer.from(seal.open(row.value), 'base64'));
  }

  issue(scope: string, id: string, ttlMs: number, now = Date.now()): string {
    const expires = (now + ttlMs).toString(36);
    return `${expires}.${this.sign(scope, id, expires)}`;
  }

  /** True when the token was issued for this scope and id and has not expired. */
  verify(scope: string, id: string, token: unknown, now = Date.now()): boolean {
    if (typeof token !== 'string' || token.length > 200) return false;
    const dot = token.indexOf('.');
    if (dot <= 0) return false;
    const expires = token.slice(0, dot);
    const expected = Buffer.from(this.sign(scope, id, expires));
    const given = Buffer.from(token.slice(dot + 1));
    const valid = given.length === expected.length && timingSafeEqual(given, expected);
    const expiresAt = parseInt(expires, 36);
    return valid && Number.isFinite(expiresAt) && expiresAt > now;
  }

  private sign(scope: string, id: string, expires: string): string {
    return createHmac('sha256', this.secret).update(`${scope}\n${id}\n${expires}`).digest('base64url');
  }
}
