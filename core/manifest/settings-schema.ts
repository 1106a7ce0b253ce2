import { z } from 'zod';
import { secret } from '../sdk/settings.js';
import type { ManifestSettingField, ManifestSettings } from './schema.js';

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', '0', 'no', 'off']);

// Environment values arrive as strings, so number and boolean fields accept their text forms.
export const fromNumberText = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value);
export function fromBooleanText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return value;
}

function baseSchema(field: ManifestSettingField): z.ZodType {
  switch (field.type) {
    case 'string':
      return field.enum && field.enum.length > 0 ? z.enum(field.enum as [string, ...string[]]) : z.string();
    case 'number':
      return z.preprocess(fromNumberText, z.number());
    case 'integer':
      return z.preprocess(fromNumberText, z.int());
    case 'boolean':
      return z.preprocess(fromBooleanText, z.boolean());
  }
}

function fieldSchema(field: ManifestSettingField): z.ZodType {
  let schema = baseSchema(field);
  if (field.default !== undefined) schema = schema.default(field.default as never);
  else if (!field.required) schema = schema.optional();
  // zod keeps a description per schema instance, so it goes on the outermost one.
  if (field.description) schema = schema.describe(field.description);
  return field.secret ? secret(schema) : schema;
}

/**
 * The settings schema of a declarative plugin, built from its manifest's `settings` block: what
 * a code plugin passes to definePlugin as `settings`. Unknown keys are dropped, as there.
 */
export function settingsSchemaFromManifest(settings?: ManifestSettings): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(settings ?? {})) shape[name] = fieldSchema(field);
  return z.object(shape);
}

/** The environment variables that fill settings fields: `{ api_key: 'PROVIDER_API_KEY' }`. */
export function envMapFromManifest(settings?: ManifestSettings): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [name, field] of Object.entries(settings ?? {})) if (field.env) map[name] = field.env;
  return map;
}
