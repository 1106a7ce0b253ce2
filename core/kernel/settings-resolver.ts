import { z } from 'zod';
import { ConfigError } from '../sdk/errors.js';
import { credentialFields, dataPathFields, needsSettings, secretFields } from '../sdk/settings.js';
import { resolvePluginPath, type PluginPathRoots } from './plugin-paths.js';

/**
 * Where a setting's value came from: the operator's environment, the host's configuration
 * (a key the host bridges to the plugin's variable, writable at run time), the plugin config
 * store, or the schema's default.
 */
export type SettingSource = 'env' | 'config' | 'store' | 'default';

/** What settings resolution needs besides the values: where path settings may point, and which variables are run-time values. */
export interface SettingsContext {
  /** Path settings (dataPath) resolve inside these; without them paths are left as given. */
  paths?: PluginPathRoots;
  /** True for a variable whose value comes from the host's run-time configuration, not the environment. */
  runtimeVariable?: (name: string) => boolean;
  /** The source of the stored settings (default `store`); an instance's settings come from the host (`env` or `config`). */
  storedSource?: SettingSource;
}

/** True when the operator chose the value (environment or the plugin's default), not a run-time write. */
export function isOperatorSource(source: SettingSource | undefined): boolean {
  return source === 'env' || source === 'default';
}

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
  context: SettingsContext = {},
): ResolvedSettings {
  // No prototype: zod reads a field the object lacks through the prototype chain, so an
  // unset field named `toString` would be seen as a function.
  const merged: Record<string, unknown> = Object.create(null);
  const sources: Record<string, SettingSource> = {};
  for (const [k, v] of Object.entries(stored)) {
    if (v !== undefined && v !== null) {
      setOwn(merged, k, v);
      setOwn(sources, k, context.storedSource ?? 'store');
    }
  }
  for (const [field, variable] of Object.entries(envMap)) {
    const value = variable ? env[variable] : undefined;
    if (value !== undefined && value !== '') {
      setOwn(merged, field, value);
      setOwn(sources, field, context.runtimeVariable?.(variable!) ? 'config' : 'env');
    }
  }
  if (!schema) return { values: { ...merged }, sources, secretFields: [] };
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    // Only required fields left unset: named from the schema, not in zod's words.
    const unset = Object.keys(schema.shape).filter((key) => merged[key] === undefined && !(schema.shape[key] as z.ZodType).safeParse(undefined).success);
    if (unset.length && parsed.error.issues.every((i) => unset.includes(String(i.path[0])))) {
      throw new ConfigError(needsSettings(unset.map((key) => (envMap[key] ? `${key} (${envMap[key]})` : key))), unset[0]);
    }
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'settings';
    throw new ConfigError(`setting "${field}": ${issue.message}`, field);
  }
  const values = parsed.data as Record<string, unknown>;
  for (const key of Object.keys(schema.shape)) if (!Object.hasOwn(sources, key) && values[key] !== undefined) sources[key] = 'default';
  if (context.paths) {
    for (const field of dataPathFields(schema)) {
      if (typeof values[field] === 'string') values[field] = resolvePluginPath(field, values[field], context.paths);
    }
  }
  for (const { field, urlField } of credentialFields(schema)) {
    const variable = envMap[field];
    const url = values[urlField];
    if (sources[field] !== 'env' || url === undefined || url === '' || isOperatorSource(sources[urlField])) continue;
    const urlVariable = envMap[urlField];
    throw new ConfigError(
      `setting "${field}" comes from the environment${variable ? ` (${variable})` : ''} and is sent only to a "${urlField}" given there too${urlVariable ? ` (${urlVariable})` : ''}; "${urlField}" was set at run time (${sources[urlField] === 'config' ? 'host configuration' : 'plugin config store'}), so the credential is withheld: set "${urlField}" in the environment, or remove the run-time value`,
      urlField,
    );
  }
  return { values, sources, secretFields: secretFields(schema) };
}

/** An own data property even for a key like `__proto__`, which plain assignment would treat as the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The values of secret fields, for masking them wherever they could appear. */
export function secretValues(resolved: Pick<ResolvedSettings, 'values' | 'secretFields'>): string[] {
  return resolved.secretFields
    .map((f) => resolved.values[f])
    .filter((v): v is string => typeof v === 'string' && v.length > 0);
}
