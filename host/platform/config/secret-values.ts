import { SECRET_FIELDS } from './model/index.js';
import type { ConfigRegistry } from './registry.js';

/** The configured secrets in clear, so a trace or a log can mask them wherever they would appear. */
export function secretValuesOf(config: ConfigRegistry): string[] {
  const values = config.effective().config as Record<string, unknown>;
  return [...SECRET_FIELDS].map((k) => values[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}
