import { z } from 'zod';
import { ConfigError } from '../sdk/errors.js';
import { secretFields } from '../sdk/settings.js';

export type SettingSource = 'env' | 'store' | 'default';

export interface ResolvedSettings {
  values: Record<string, unknown>;
  sources: Record<string, SettingSource>;
  secretFields: string[];
}

/**
 * A plugin's effective settings: environment (through the plugin's env map) wins over the
 * config store, which wins over the schema's defaults, as in the config registry.
 * Throws ConfigError naming the first bad field.
 */
export function resolveSettings(
  schema: z.ZodObject | undefined,
  stored: Record<string, unknown>,
  envMap: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv,
): ResolvedSettings {
  const merged: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const [k, v] of Object.entries(stored)) {
    if (v !== undefined && v !== null) {
      merged[k] = v;
      sources[k] = 'store';
    }
  }
  for (const [field, variable] of Object.entries(envMap)) {
    const value = variable ? env[variable] : undefined;
    if (value !== undefined && value !== '') {
      merged[field] = value;
      sources[field] = 'env';
    }
  }
  if (!schema) return { values: merged, sources, secretFields: [] };
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'settings';
    throw new ConfigError(`setting "${field}": ${issue.message}`, field);
  }
  const values = parsed.data as Record<string, unknown>;
  for (const key of Object.keys(schema.shape)) if (!(key in sources) && values[key] !== undefined) sources[key] = 'default';
  return { values, sources, secretFields: secretFields(schema) };
}

/** The values of secret fields, for masking them wherever they could appear. */
export function secretValues(resolved: Pick<ResolvedSettings, 'values' | 'secretFields'>): string[] {
  return resolved.secretFields
    .map((f) => resolved.values[f])
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
}
