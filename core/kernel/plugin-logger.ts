import type { Logger } from 'pino';
import type { PluginLogger } from '../sdk/index.js';
import { SECRET_MASK } from '../sdk/settings.js';

/**
 * A plugin's logger: every secret value of its settings is replaced by the mask in messages
 * and fields, whatever the plugin writes.
 */
export function createPluginLogger(base: Logger, bindings: Record<string, unknown>, secrets: () => string[]): PluginLogger {
  const child = base.child(bindings);
  const scrub = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return maskSecrets(value, secrets());
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (value instanceof Error) return { name: value.name, message: maskSecrets(value.message, secrets()) };
    if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, depth + 1)]));
  };
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (msg: string, fields?: Record<string, unknown>) => {
    if (fields) child[level](scrub(fields) as object, maskSecrets(msg, secrets()));
    else child[level](maskSecrets(msg, secrets()));
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

export function maskSecrets(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join(SECRET_MASK);
  return out;
}
