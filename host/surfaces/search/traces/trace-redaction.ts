import { SECRET_MASK } from '../../../../core/sdk/settings.js';

// Field names that carry credentials whatever the caller put in them.
const SECRET_KEY = /(api[_-]?key|secret|password|passwd|token|authorization|credential|cookie)/i;

/**
 * A copy of `value` safe to write to a trace: secret-named fields masked and every known secret
 * value (the configured secrets, in clear) replaced by the mask wherever it appears in text.
 */
export function redactForTrace(value: unknown, secretValues: readonly string[], depth = 0): unknown {
  if (depth > 20) return '[nested too deep]';
  if (typeof value === 'string') return maskKnown(value, secretValues);
  if (Array.isArray(value)) return value.map((v) => redactForTrace(v, secretValues, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && v !== '' ? SECRET_MASK : redactForTrace(v, secretValues, depth + 1);
    }
    return out;
  }
  return value;
}

function maskKnown(text: string, secretValues: readonly string[]): string {
  let out = text;
  // Very short values would mask ordinary words; real secrets are longer than this.
  for (const secret of secretValues) if (secret.length >= 6 && out.includes(secret)) out = out.split(secret).join(SECRET_MASK);
  return out;
}
