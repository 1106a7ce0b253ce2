import { z } from 'zod';
import { fromBooleanText, fromNumberText } from '../../manifest/index.js';
import type { PluginDefinition } from '../../sdk/plugin.js';
import { credentialFields, credentialOf, dataPathFields, envOnly, envOnlyFields, markDataPath, secret, secretFields } from '../../sdk/settings.js';

type JsonNode = Record<string, unknown> & { type?: unknown; default?: unknown; description?: unknown };

/**
 * What the gateway needs of an isolated plugin's entry without importing it: its settings as
 * JSON Schema (input side) with the SDK's marks, and its environment map. Made in the isolate
 * (structured-clone data), turned back into a zod schema in the gateway.
 */
export interface EntryDescription {
  /** The settings object's JSON Schema (io: input), or null when the plugin has none. */
  settings: { properties: Record<string, JsonNode>; required: string[] } | null;
  secret: string[];
  envOnly: string[];
  dataPath: string[];
  credentials: Array<{ field: string; urlField: string }>;
  env: Record<string, string>;
}

/** Describes a loaded definition (runs in the isolate). */
export function describeDefinition(definition: PluginDefinition): EntryDescription {
  const schema = definition.settings;
  let settings: EntryDescription['settings'] = null;
  if (schema instanceof z.ZodObject) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, JsonNode>; required?: string[] };
    settings = { properties: json.properties ?? {}, required: json.required ?? [] };
  }
  const env = Object.fromEntries(Object.entries(definition.env ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  return { settings, secret: secretFields(schema), envOnly: envOnlyFields(schema), dataPath: dataPathFields(schema), credentials: credentialFields(schema), env };
}

// Environment values are text: numbers and booleans accept their text forms, as a manifest's fields do.
function tolerantOfText(node: JsonNode, schema: z.ZodType): z.ZodType {
  if (node.type === 'number' || node.type === 'integer') return z.preprocess(fromNumberText, schema);
  if (node.type === 'boolean') return z.preprocess(fromBooleanText, schema);
  return schema;
}

function fieldSchema(node: JsonNode, required: boolean): z.ZodType {
  const { default: fallback, description, ...rest } = node;
  let schema: z.ZodType;
  try {
    schema = z.fromJSONSchema(rest as never) as z.ZodType;
  } catch {
    schema = z.unknown(); // a shape JSON Schema cannot carry back: the isolate's own schema decides
  }
  // The default inside the text conversion, where JSON Schema (the console's form) still sees it.
  if (fallback !== undefined) schema = schema.default(fallback as never);
  else if (!required) schema = schema.optional();
  schema = tolerantOfText(rest, schema);
  if (typeof description === 'string') schema = schema.describe(description);
  return schema;
}

/**
 * The gateway's stand-in for an isolated plugin's settings schema: the fields, types, bounds,
 * defaults and marks of the description. It checks what JSON Schema can say (so a config write
 * is refused with its field); refinements and transforms are the isolate's, which parses the
 * settings again with the plugin's own schema before start (a failure there is a ConfigError).
 */
export function settingsFromDescription(description: EntryDescription): { schema: z.ZodObject | undefined; envMap: Record<string, string> } {
  if (!description.settings) return { schema: undefined, envMap: description.env };
  const required = new Set(description.settings.required);
  const credentials = new Map(description.credentials.map((c) => [c.field, c.urlField]));
  const shape: Record<string, z.ZodType> = {};
  for (const [name, node] of Object.entries(description.settings.properties)) {
    let field = fieldSchema(node, required.has(name));
    if (description.secret.includes(name)) field = secret(field);
    if (description.envOnly.includes(name)) field = envOnly(field);
    if (description.dataPath.includes(name)) field = markDataPath(field);
    const urlField = credentials.get(name);
    if (urlField) field = credentialOf(urlField, field);
    shape[name] = field;
  }
  return { schema: z.object(shape), envMap: description.env };
}
