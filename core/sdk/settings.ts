import { z } from 'zod';
import { ConfigError } from './errors.js';

const SECRET = Symbol.for('switchboard.secret');
const ENV_ONLY = Symbol.for('switchboard.envOnly');
const DATA_PATH = Symbol.for('switchboard.dataPath');
const CREDENTIAL_OF = Symbol.for('switchboard.credentialOf');

/** Marks any string schema as a path setting (what `dataPath()` returns); the host's, for schemas it rebuilds. */
export function markDataPath<T extends z.ZodType>(schema: T): T {
  (schema as unknown as Record<symbol, boolean>)[DATA_PATH] = true;
  return schema;
}

/** Marks a settings field as secret: write-only over HTTP, masked in logs and responses. */
export function secret<T extends z.ZodType>(schema: T): T {
  (schema as unknown as Record<symbol, boolean>)[SECRET] = true;
  return schema;
}

/**
 * Marks a settings field as environment-only: the host refuses to write it over HTTP (a
 * filesystem path, say, that must not be request-chosen). Give it an environment variable.
 */
export function envOnly<T extends z.ZodType>(schema: T): T {
  (schema as unknown as Record<symbol, boolean>)[ENV_ONLY] = true;
  return schema;
}

/**
 * A filesystem path setting (a directory the plugin writes, say): relative paths are under the
 * host's DATA_DIR. The kernel hands the plugin the absolute path, and refuses (needs-config, or
 * a 422 on the config write) a path outside DATA_DIR, by `..`, an absolute path or a symbolic
 * link, unless the operator allows its place in PLUGIN_PATHS_ALLOW (environment only).
 */
export function dataPath(defaultPath?: string) {
  const schema = markDataPath(z.string().min(1));
  return defaultPath === undefined ? schema : schema.default(defaultPath);
}

/**
 * Marks a secret setting as the credential of the URL in `urlField`. A credential from the
 * environment goes only to a URL from the environment (or the plugin's default): when the URL
 * was set at run time (the config store, the host's config file), the kernel refuses to start
 * the plugin with it (needs-config, or a 422 on the config write) instead of sending it there.
 */
export function credentialOf<T extends z.ZodType>(urlField: string, schema: T): T {
  (schema as unknown as Record<symbol, string>)[CREDENTIAL_OF] = urlField;
  return schema;
}

/** The mask shown in place of a secret's value; sending it back means "unchanged". */
export const SECRET_MASK = '***';

/** True when a field (or the field inside optional/default/nullable wrappers) is secret. */
export function isSecretSchema(schema: z.ZodType): boolean {
  return hasMark(schema, SECRET);
}

function hasMark(schema: z.ZodType, mark: symbol): boolean {
  return markOf(schema, mark) !== undefined;
}

function markOf(schema: z.ZodType, mark: symbol): unknown {
  let current: unknown = schema;
  for (let depth = 0; depth < 8 && current; depth++) {
    const value = (current as Record<symbol, unknown>)[mark];
    if (value) return value;
    const def = (current as { _zod?: { def?: { innerType?: unknown; in?: unknown } } })._zod?.def;
    current = def?.innerType ?? def?.in;
  }
  return undefined;
}

/** The names of the secret fields of an object settings schema. */
export function secretFields(schema: z.ZodType | undefined): string[] {
  return markedFields(schema, SECRET);
}

/** The names of the environment-only fields of an object settings schema. */
export function envOnlyFields(schema: z.ZodType | undefined): string[] {
  return markedFields(schema, ENV_ONLY);
}

/** The names of the path fields (dataPath) of an object settings schema. */
export function dataPathFields(schema: z.ZodType | undefined): string[] {
  return markedFields(schema, DATA_PATH);
}

/** Each credential field (credentialOf) of an object settings schema, with the URL field it belongs to. */
export function credentialFields(schema: z.ZodType | undefined): Array<{ field: string; urlField: string }> {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([field, s]) => {
    const urlField = markOf(s, CREDENTIAL_OF);
    return typeof urlField === 'string' ? [{ field, urlField }] : [];
  });
}

function markedFields(schema: z.ZodType | undefined, mark: symbol): string[] {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => hasMark(field, mark))
    .map(([name]) => name);
}

/**
 * A boolean setting that the environment can fill too: a real boolean from the config store, or
 * "true"/"false", "1"/"0", "yes"/"no", "on"/"off" from an environment variable.
 */
export function booleanSetting() {
  return z.union([z.boolean(), z.stringbool()]);
}

/**
 * The environment map of a plugin that reads every setting from `<PREFIX>_<FIELD>`, the field in
 * upper snake case (`baseUrl` of PROVIDERA: `PROVIDERA_BASE_URL`): what `definePlugin({ env })` takes.
 */
export function envByFieldName<S extends z.ZodObject>(prefix: string, schema: S): Record<keyof z.infer<S> & string, string> {
  const names = Object.keys(schema.shape).map((field) => [field, `${prefix}_${field.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`]);
  return Object.fromEntries(names) as Record<keyof z.infer<S> & string, string>;
}

/** Text without line breaks or other control characters: for values that end up on a protocol line. */
export function singleLineText() {
  return z.string().regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters');
}

/**
 * The fields of `fields` that are not set, each named with its environment variable
 * (`apiKey (PROVIDERA_API_KEY)`); empty when all are. For a plugin that serves what its
 * settings allow (inbound only, say) and says what the rest needs.
 */
export function missingSettings<S extends Record<string, unknown>>(settings: S, fields: readonly (keyof S & string)[], env: Partial<Record<keyof S, string>>): string[] {
  return fields
    .filter((field) => settings[field] === undefined || settings[field] === null || settings[field] === '')
    .map((field) => (env[field] ? `${field} (${env[field]})` : field));
}

/**
 * What a plugin waiting for settings reports, in one wording everywhere (GET /plugins, the
 * console, `switchboard plugins list`, the log): `needs settings: url, token (ACME_TOKEN)`.
 */
export function needsSettings(missing: readonly string[]): string {
  return `needs settings: ${missing.join(', ')}`;
}

/**
 * Checks that every field a plugin cannot work without is set, naming the missing ones and
 * their environment variables in a ConfigError, so the plugin waits in needs-config.
 */
export function requireSettings<S extends Record<string, unknown>, K extends keyof S & string>(
  // Not in the message: every listing names the plugin already.
  _pluginId: string,
  settings: S,
  fields: readonly K[],
  env: Partial<Record<keyof S, string>>,
): S & { [F in K]-?: NonNullable<S[F]> } {
  const missing = missingSettings(settings, fields, env);
  if (missing.length) throw new ConfigError(needsSettings(missing), fields.find((field) => missingSettings(settings, [field], env).length));
  return settings as S & { [F in K]-?: NonNullable<S[F]> };
}
