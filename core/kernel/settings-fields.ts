import { z } from 'zod';
import { envOnlyFields, secretFields } from '../sdk/settings.js';

/** One field of a plugin's settings schema, described for a generated form (the console's). */
export interface SettingField {
  name: string;
  /** enum: one of `options`; json: anything else (arrays, objects, unions), edited as JSON text. */
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';
  options?: string[];
  required: boolean;
  default?: unknown;
  description?: string;
  /** Write-only over HTTP: its value is never shown, only whether it is set. */
  secret: boolean;
  /** Refused over HTTP: only its environment variable sets it. */
  env_only: boolean;
  /** The environment variable that overrides it, if any. */
  env: string | null;
}

interface JsonSchemaNode {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  anyOf?: JsonSchemaNode[];
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
}

function kindOf(node: JsonSchemaNode): Pick<SettingField, 'type' | 'options'> {
  // z.string().optional() in input mode is plain; a nullable field is anyOf [x, null].
  const variants = node.anyOf?.filter((v) => v.type !== 'null') ?? [node];
  if (variants.length !== 1) return { type: 'json' };
  const v = variants[0]!;
  if (Array.isArray(v.enum) && v.enum.every((o) => typeof o === 'string')) return { type: 'enum', options: v.enum as string[] };
  const t = Array.isArray(v.type) ? v.type.filter((x) => x !== 'null') : [v.type];
  if (t.length === 1 && (t[0] === 'string' || t[0] === 'number' || t[0] === 'integer' || t[0] === 'boolean')) return { type: t[0] };
  return { type: 'json' };
}

/**
 * The fields of an object settings schema with their types, defaults and marks, in declaration
 * order; an empty list when the plugin has no settings or its schema is not an object.
 */
export function describeSettingFields(schema: z.ZodType | undefined, envMap: Record<string, string>): SettingField[] {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  let json: JsonSchemaNode;
  try {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  } catch {
    json = {};
  }
  const secrets = new Set(secretFields(schema));
  const envOnly = new Set(envOnlyFields(schema));
  const required = new Set(json.required ?? []);
  return Object.keys(schema.shape as Record<string, unknown>).map((name) => {
    const node = json.properties?.[name] ?? {};
    const field: SettingField = {
      name,
      ...kindOf(node),
      required: required.has(name) && node.default === undefined,
      secret: secrets.has(name),
      env_only: envOnly.has(name),
      env: typeof envMap[name] === 'string' && envMap[name] !== '' ? envMap[name] : null,
    };
    if (node.default !== undefined && !field.secret) field.default = node.default;
    if (node.description) field.description = node.description;
    return field;
  });
}
