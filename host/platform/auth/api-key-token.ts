import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** `sbk_<key_id>_<secret>`: the id finds the record, the secret (32 random bytes) proves it. */
const TOKEN = /^sbk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function newKeyId(): string {
  return randomBytes(8).toString('hex');
}

export function newToken(keyId: string): string {
  return `sbk_${keyId}_${randomBytes(32).toString('base64url')}`;
}

/** The key id a token names, or undefined when it is not one of our tokens. */
export function keyIdOf(token: string): string | undefined {
  return TOKEN.exec(token)?.[1];
}

/**
 * SHA-256, hex. The secret is 256 random bits, so a fast hash is enough (no guessing to slow
 * down) and keeps verification cheap on every request.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time equality of two strings of any length (both are hashed first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** Constant-time equality of a token's hash with a stored hex hash. */
export function matchesHash(token: string, storedHex: string): boolean {
  const given = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(storedHex, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}
