/**
 * Lines of code or text that look like they hold a credential: an assignment to a key, token,
 * secret or password name, a private-key block, or a token of a well-known shape.
 */
const SECRET_LINE = [
  /(api[_-]?key|apikey|secret|token|passw(or)?d|passwd|pwd|private[_-]?key|access[_-]?key|client[_-]?secret|credential|auth)[A-Za-z0-9_-]*["']?\s*[:=]/i,
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
export const MASKED_LINE = '[masked: a secret-shaped line]';

/** `text` with every secret-shaped line (and every line of a private-key block) replaced by MASKED_LINE. */
export function maskSecretLines(text: string): string {
  let inKey = false;
  return text
    .split('\n')
    .map((line) => {
      if (inKey) {
        if (PRIVATE_KEY_END.test(line)) inKey = false;
        return MASKED_LINE;
      }
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(line) && !PRIVATE_KEY_END.test(line)) inKey = true;
      return SECRET_LINE.some((pattern) => pattern.test(line)) ? MASKED_LINE : line;
    })
    .join('\n');
}

/** A copy of a JSON value with maskSecretLines applied to every string in it. */
export function maskSecretsDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return maskSecretLines(value) as T;
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskSecretsDeep(v, depth + 1)) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecretsDeep(v, depth + 1)])) as T;
}
