import { z } from 'zod';
import { secret } from '../../../../core/sdk/settings.js';
import { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE } from '../../../../core/manifest/plugin-id.js';
import type { ProviderKind } from '../../../../core/sdk/contracts/index.js';
import { builtInDefaultNameOf, builtInDefaultOf } from '../../plugins/built-in-manifests.js';

// Field kinds of the configuration model. Values arrive as strings from the environment and as JSON values from the config file or
// the API; each field accepts both and stores the typed value.

export function numberFromText(value: unknown): unknown {
  return typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
}

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

export function booleanFromText(value: unknown): unknown {
  if (value === 1) return true;
  if (value === 0) return false;
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return value;
}

// An empty value of an optional key means "not set" (a cleared form field, `KEY=` in .env).
export function emptyAsUnset(value: unknown): unknown {
  return value === '' || value === null ? undefined : value;
}

export const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(numberFromText, z.number().int().min(min).max(max));
export const decimal = (min: number, max?: number) =>
  z.preprocess(numberFromText, max === undefined ? z.number().min(min) : z.number().min(min).max(max));
export const flag = () => z.preprocess(booleanFromText, z.boolean());
export const text = () => z.string().min(1);
export const optionalText = () => z.preprocess(emptyAsUnset, z.string().min(1).optional());
export const apiSecret = (what: string) => secret(optionalText().describe(what));
export const pluginId = () => z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE);

const manifestDefaults = new WeakMap<z.ZodType, ProviderKind>();
const startedOnValidate = new WeakSet<z.ZodType>();
const pluginVisible = new WeakSet<z.ZodType>();

/**
 * Marks a key plugins may read through the environment variable of its name (SECTION__KEY for
 * nested ones) when they declare it: its effective value answers there, wherever it was set.
 */
export function visibleToPlugins<T extends z.ZodType>(schema: T): T {
  pluginVisible.add(schema);
  return schema;
}

export function isVisibleToPlugins(schema: z.ZodType): boolean {
  return pluginVisible.has(schema);
}

/** Whether POST /admin/settings/validate starts the plugin this key names, on the candidate settings. */
export function startedOnSettingsValidation(schema: z.ZodType): boolean {
  return startedOnValidate.has(schema);
}

/** The kind whose built-in manifest marked `default` gives this key its default, if any. */
export function manifestDefaultKindOf(schema: z.ZodType): ProviderKind | undefined {
  return manifestDefaults.get(schema);
}

/**
 * The plugin id of the backend of `kind`. Unset, it is the built-in manifest marked `default` for
 * the kind (`named`: shown by that manifest's first alias, as the spec names the judges).
 */
export function backendId(kind: ProviderKind, description: string, options: { named?: boolean; startOnValidate?: boolean } = {}) {
  const fallback = () => (options.named ? builtInDefaultNameOf(kind) : builtInDefaultOf(kind));
  // Empty means unset; a spec name (`hosted`) is trimmed and lowercased as before, an id is taken as written.
  const read = (v: unknown) => (options.named && typeof v === 'string' ? emptyAsUnset(v.trim().toLowerCase()) : emptyAsUnset(v));
  const schema = z.preprocess(read, pluginId().default(fallback)).describe(description);
  manifestDefaults.set(schema, kind);
  if (options.startOnValidate) startedOnValidate.add(schema);
  return schema;
}
