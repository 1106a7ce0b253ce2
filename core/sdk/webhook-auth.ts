import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Credential checks for provider webhooks, written once for every plugin. All compare in
 * constant time; none says which part was wrong.
 */

/** Equality of two secrets in constant time, whatever their lengths (both are hashed first). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The usual body-signature rule: HMAC of the raw body, lowercase hex, header trimmed and lowercased. */
export function hmacHexMatches(rawBody: Buffer, secret: string, header: string | undefined, algorithm: 'sha256' | 'sha1' = 'sha256'): boolean {
  if (typeof header !== 'string') return false;
  const expected = createHmac(algorithm, secret).update(rawBody).digest('hex');
  return sameSecret(header.trim().toLowerCase(), expected);
}

/** HTTP Basic credentials; both parts are always compared. */
export function basicAuthMatches(header: string | undefined, user: string, pass: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const userOk = sameSecret(colon >= 0 ? decoded.slice(0, colon) : '', user);
  const passOk = sameSecret(colon >= 0 ? decoded.slice(colon + 1) : '', pass);
  return !!match && colon >= 0 && userOk && passOk;
}
