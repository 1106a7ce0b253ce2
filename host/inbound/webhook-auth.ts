import { createHmac, timingSafeEqual } from 'node:crypto';
import { sameSecret } from '../auth/api-key-token.js';

/** The spec's rule: HMAC-SHA256 of the raw body, lowercase hex, header trimmed and lowercased. */
export function hmacMatches(rawBody: Buffer, secret: string, header: string | undefined): boolean {
  if (typeof header !== 'string') return false;
  const given = Buffer.from(header.trim().toLowerCase(), 'utf8');
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** HTTP Basic credentials checked in constant time (both parts always compared). */
export function basicMatches(header: string | undefined, user: string, pass: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  const givenUser = colon >= 0 ? decoded.slice(0, colon) : '';
  const givenPass = colon >= 0 ? decoded.slice(colon + 1) : '';
  const userOk = sameSecret(givenUser, user);
  const passOk = sameSecret(givenPass, pass);
  return !!match && userOk && passOk;
}

export { sameSecret };
