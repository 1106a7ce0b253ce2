/**
 * Patterns of credentials in code or prose: an assignment of a literal to a key, token or
 * password name, a private-key block, or a token of a well-known shape.
 */
const CREDENTIAL_NAME = '(api[_-]?key|apikey|secret|token|passw(or)?d|passwd|pwd|private[_-]?key|access[_-]?key|client[_-]?secret|credential|auth)[A-Za-z0-9_-]*';
const CREDENTIAL_PATTERNS = [
  // A credential-named key given a literal: quoted, or a bare value to the end (not a call).
  new RegExp(`${CREDENTIAL_NAME}["']?\\s*[:=]+\\s*(["'\`][^"'\`]+["'\`]|[^\\s("'\`;,]{3,}[;,]?\\s*$)`, 'i'),
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\b(sk|pk|rk)[-_](live[-_]|test[-_])?[A-Za-z0-9]{16,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/,
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/i,
  /:\/\/[^\s/:@]+:[^\s/@]+@/,
];
const PRIVATE_KEY_END = /-----END [A-Z ]*PRIVATE KEY-----/;
export const REDACTED = '[redacted: credential-shaped]';

/** `text` with each credential-shaped row (and each row of a private-key block) replaced by REDACTED. */
export function redactCredentials(text: string): string {
  let inKey = false;
  return text
    .split('\n')
    .map((line) => {
      if (inKey) {
        if (PRIVATE_KEY_END.test(line)) inKey = false;
        return REDACTED;
      }
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(line) && !PRIVATE_KEY_END.test(line)) inKey = true;
      return CREDENTIAL_PATTERNS.some((pattern) => pattern.test(line)) ? REDACTED : line;
    })
    .join('\n');
}

/** A copy of a JSON value with redactCredentials applied to every string in it. */
export function redactCredentialsDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactCredentials(value) as T;
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactCredentialsDeep(v, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactCredentialsDeep(v, depth + 1)])) as T;
}
