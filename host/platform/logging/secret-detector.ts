import { SECRET_MASK } from '../../../core/sdk/settings.js';

/**
 * The one secret detector: every place that masks secrets in text (logs, traces, MCP answers and
 * their search snippets) asks it which lines of a text carry one. It works by line because a
 * snippet is a window of lines: a line that carries a secret is replaced whole.
 */
export const REDACTED = '[redacted: credential-shaped]';

// Words that make an identifier a credential's name (`db_pass`, `clientSecret`, `API_KEY`).
const SECRET_WORDS = new Set(['password', 'passwd', 'pwd', 'pass', 'passphrase', 'secret', 'token', 'apikey', 'credential', 'credentials', 'privatekey', 'accesskey', 'secretkey', 'auth', 'authorization', 'cookie']);
const KEY_QUALIFIERS = new Set(['api', 'access', 'private', 'secret', 'signing', 'encryption', 'master', 'client']);
// A value that names a type or nothing, not a literal: `password: string`, `token = null`.
const NON_LITERAL = /^(string|number|boolean|bool|str|int|any|unknown|null|none|nil|undefined|true|false|void|never|object|bytes|required|optional)$/i;
// A reference to where a secret is (`process.env.TOKEN`, `options.apiKey`), not the secret.
const REFERENCE = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/;
// Last words that make a credential's name say something about it, not hold it (`tokenCount`, `secretName`).
const META_WORDS = new Set(['count', 'length', 'len', 'size', 'limit', 'max', 'min', 'type', 'name', 'id', 'ids', 'ttl', 'expiry', 'expires', 'url', 'uri', 'path', 'file', 'header', 'field', 'kind', 'prefix', 'hint', 'policy', 'enabled', 'required', 'index', 'env', 'var', 'ref', 'hash', 'mask', 'mode', 'method', 'scheme', 'source', 'store', 'file', 'dir', 'provider']);

// `name = value`, `name: value`, `'name' => 'value'`, `name := value`; a trailing `# ...` or `// ...` comment is allowed.
// The name is at most 101 characters: unbounded, a long dotted run (`a.a.a...`, minified code)
// would be scanned to its end from each of its dots, quadratic in the line (20 s for 100 KB).
const ASSIGNMENT = /(?<![A-Za-z0-9_])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,100})\1\s*(=>|:=|==?|:)\s*(["'`]([^"'`]+)["'`]|([^\s("'`;,{[]+))[;,)]?\s*((#|\/\/).*)?$/;
// A key whose value is on the following line(s): `password:`, `db_pass =`, `secret: |`.
const KEY_ALONE = /^\s*-?\s*(["']?)([A-Za-z_][A-Za-z0-9_.-]*)\1\s*(=>|:=|=|:)\s*([|>][-+]?|\\)?\s*(#.*)?$/;

const TOKEN_SHAPES = [
  /\bsk-(proj|ant|svcacct|admin)-[A-Za-z0-9_-]{16,}/, // OpenAI project and Anthropic keys
  /\b(sk|pk|rk)[-_](live[-_]|test[-_])?[A-Za-z0-9]{16,}/, // OpenAI, Stripe
  /\bgithub_pat_[A-Za-z0-9_]{22,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bglpat-[A-Za-z0-9_-]{20,}/,
  /\bnpm_[A-Za-z0-9]{36}\b/,
  /\bsbk_[0-9a-f]{16}_[A-Za-z0-9_-]{20,}/, // this gateway's own keys
  /\bAIza[0-9A-Za-z_-]{35}/, // Google API keys
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/, // AWS access key ids
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/, // Slack tokens
  /hooks\.slack\.com\/(services|workflows|triggers)\/[A-Za-z0-9_/-]{10,}/, // Slack webhook URLs
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, // JWTs
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/i,
  /:\/\/[^\s/:@]+:[^\s/@]+@/, // URL credentials
];
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
// A line of a PEM body seen without its BEGIN (a window that starts inside the block).
const PEM_BODY = /^\s*(?=[A-Za-z0-9+/=]*[a-z])(?=[A-Za-z0-9+/=]*[A-Z])(?=[A-Za-z0-9+/=]*[0-9])[A-Za-z0-9+/]{40,}={0,2}\s*$/;

/** Whether an identifier names a credential: one of its words (split at `_ - .` and camel case) is a secret word. */
function isSecretName(name: string): boolean {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[_.-]+/).filter(Boolean);
  if (words.length > 1 && META_WORDS.has(words[words.length - 1]!)) return false;
  return words.some((w, i) => SECRET_WORDS.has(w) || (w === 'key' && i > 0 && KEY_QUALIFIERS.has(words[i - 1]!)));
}

function assignsSecret(line: string): boolean {
  const m = ASSIGNMENT.exec(line);
  if (!m || !isSecretName(m[2]!)) return false;
  const value = m[5] ?? m[6] ?? '';
  if (value.length < 3 || /^\d{1,7}$/.test(value)) return false;
  // A bare word is a literal unless it is a type, a keyword, a reference or the name itself (`token: token`).
  if (m[6] !== undefined && (NON_LITERAL.test(value) || REFERENCE.test(value) || value.toLowerCase() === m[2]!.split('.').pop()!.toLowerCase())) return false;
  return true;
}

/** Whether a single line carries a secret: a token of a known shape, or a literal given to a credential's name. */
export function lineHasSecret(line: string): boolean {
  return TOKEN_SHAPES.some((shape) => shape.test(line)) || assignsSecret(line) || PEM_BODY.test(line);
}

/**
 * The indexes of the lines of `text` that carry a secret. A private-key block is masked from its
 * BEGIN line to its END line, or to the end of the text when the window cuts it; an END line
 * without its BEGIN masks from the window's start. A key alone on its line masks the value lines
 * under it (more indented, or the next one).
 */
export function secretLines(lines: readonly string[]): Set<number> {
  const masked = new Set<number>();
  const firstEnd = lines.findIndex((l) => KEY_END.test(l));
  const firstBegin = lines.findIndex((l) => KEY_BEGIN.test(l));
  if (firstEnd >= 0 && (firstBegin < 0 || firstEnd < firstBegin)) for (let i = 0; i <= firstEnd; i++) masked.add(i);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (KEY_BEGIN.test(line)) {
      masked.add(i);
      if (KEY_END.test(line)) continue;
      while (++i < lines.length) {
        masked.add(i);
        if (KEY_END.test(lines[i]!)) break;
      }
      continue;
    }
    if (lineHasSecret(line)) {
      masked.add(i);
      continue;
    }
    const alone = KEY_ALONE.exec(line);
    if (!alone || !isSecretName(alone[2]!)) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    if (j >= lines.length) continue;
    // A block value (YAML `|`, a nested mapping) goes on while the lines stay more indented.
    if (indentOf(lines[j]!) <= indentOf(line)) masked.add(j);
    else for (; j < lines.length && (lines[j]!.trim() === '' || indentOf(lines[j]!) > indentOf(line)); j++) if (lines[j]!.trim() !== '') masked.add(j);
  }
  return masked;
}

function indentOf(line: string): number {
  return line.search(/\S/);
}

/** `text` with each line that carries a secret replaced by REDACTED. */
export function maskSecretLines(text: string): string {
  if (text.length === 0) return text;
  const lines = text.split('\n');
  const masked = secretLines(lines);
  if (masked.size === 0) return text;
  return lines.map((line, i) => (masked.has(i) ? REDACTED : line)).join('\n');
}

/** `text` with every known secret value (configured secrets, in clear) replaced by the settings mask. */
export function maskKnownSecrets(text: string, secretValues: readonly string[]): string {
  let out = text;
  // Very short values would mask ordinary words; real secrets are longer than this.
  for (const secret of secretValues) if (secret.length >= 6 && out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  return out;
}

/**
 * A copy of a record (a JSON answer, a trace, a log line's fields) safe to show: a non-empty value
 * of a field with a credential's name becomes the settings mask, and in every text the known
 * secret values are masked and each line that carries a secret is replaced by REDACTED.
 */
export function maskSecretsDeep<T>(value: T, knownSecrets: readonly string[] = [], depth = 0): T {
  if (typeof value === 'string') return maskSecretLines(maskKnownSecrets(value, knownSecrets)) as T;
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return Object.assign(Object.create(Object.getPrototypeOf(value) as object) as Error, value, maskedError(value, knownSecrets)) as T;
  if (Array.isArray(value)) return value.map((v) => maskSecretsDeep(v, knownSecrets, depth + 1)) as T;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && v !== '' && isSecretName(k) ? SECRET_MASK : maskSecretsDeep(v, knownSecrets, depth + 1);
  }
  const { message, stack } = value as { message?: unknown; stack?: unknown };
  return (typeof message === 'string' && typeof stack === 'string' ? { ...out, ...maskedError({ message, stack }, knownSecrets) } : out) as T;
}

/** An error's message and stack masked; the stack's copy of the message is masked as the message (its first line reads `Error: <message>`). */
function maskedError(error: { message: string; stack?: string | undefined }, knownSecrets: readonly string[]): { message: string; stack?: string } {
  const message = maskSecretsDeep(error.message, knownSecrets);
  if (error.stack === undefined) return { message };
  return { message, stack: maskSecretsDeep(error.stack.includes(error.message) ? error.stack.replace(error.message, () => message) : error.stack, knownSecrets) };
}
