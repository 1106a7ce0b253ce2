import { z } from 'zod';
import { envOnlyFields, isSecretSchema } from '../../../core/sdk/settings.js';
import type { ProviderKind } from '../../../core/sdk/contracts/index.js';
import { isVisibleToPlugins, manifestDefaultKindOf } from './model/field-kinds.js';
import type { SettingsSection } from './settings-section.js';

export interface KeyDoc {
  /** Human-readable type: `integer (1..65535)`, `boolean`, `one of: letter, a4`. */
  type: string;
  /** The built-in default; undefined when the key is optional and unset by default. */
  default: unknown;
  /** Set when the default is the built-in manifest marked `default` for this kind. */
  defaultFromManifest?: ProviderKind;
  optional: boolean;
  secret: boolean;
  description: string;
  /** Who declares the key (`platform`, `fax`, ...). */
  owner: string;
}

/**
 * The configuration model: the keys every section declares (the platform's and each surface's),
 * merged into one strict schema. A key declared twice is refused. Nested sections
 * (`system_one.provider`) are flat dotted keys here, nested objects in the JSON config file and
 * in request bodies (flatten/nest), and `SECTION__KEY` in the environment (sections.ts).
 */
export class ConfigModel {
  readonly schema: z.ZodType<Record<string, unknown>>;
  readonly keys: readonly string[];
  /** Keys whose values never leave the process in clear: masked in responses and logs. */
  readonly secretKeys: ReadonlySet<string>;
  /**
   * Keys read from the environment (or the env file) only, never written through the API nor read
   * from the JSON config file: paths on the server and switches that weaken a check, so no
   * request can point a read or a write at a path of its choosing, or turn a check off.
   */
  readonly envOnlyKeys: ReadonlySet<string>;
  /** Names of nested sections: `system_one` for the keys `system_one.*`. */
  readonly sectionNames: ReadonlySet<string>;
  /** Keys plugins read through their environment variables when they declare them (field-kinds.ts `visibleToPlugins`). */
  readonly pluginVisibleKeys: readonly string[];
  private readonly shape: Record<string, z.ZodType>;
  private readonly ownerOf = new Map<string, string>();
  private docs?: Map<string, KeyDoc>;
  private defaultValues?: Record<string, unknown>;

  constructor(readonly sections: readonly SettingsSection[]) {
    const shape: Record<string, z.ZodType> = {};
    for (const section of sections) {
      for (const [key, schema] of Object.entries(section.keys)) {
        const taken = this.ownerOf.get(key);
        if (taken) throw new Error(`configuration key ${key} of ${section.owner} is declared by ${taken} already`);
        this.ownerOf.set(key, section.owner);
        shape[key] = schema as z.ZodType;
      }
    }
    this.shape = shape;
    this.keys = Object.keys(shape);
    const object = z.object(shape).strict();
    const rules = sections.flatMap((s) => (s.refine ? [s.refine] : []));
    this.schema = (rules.length ? object.superRefine((values, ctx) => rules.forEach((rule) => rule(values, ctx))) : object) as unknown as z.ZodType<Record<string, unknown>>;
    this.secretKeys = new Set(this.keys.filter((key) => isSecretSchema(shape[key] as z.ZodType)));
    this.envOnlyKeys = new Set(envOnlyFields(object));
    this.pluginVisibleKeys = this.keys.filter((key) => isVisibleToPlugins(shape[key]!));
    this.sectionNames = new Set(this.keys.filter((key) => key.includes('.')).map((key) => key.slice(0, key.indexOf('.'))));
  }

  isKey(key: string): boolean {
    return Object.hasOwn(this.shape, key);
  }

  /** Whether every key of `section` is part of this model (it was built with that section). */
  includes(section: SettingsSection): boolean {
    return this.sections.includes(section);
  }

  /** The schema of one key, for validating a value from a single source. */
  keySchema(key: string): z.ZodType {
    const schema = this.shape[key];
    if (!schema) throw new Error(`unknown configuration key ${key}`);
    return schema as z.ZodType;
  }

  /** Every key's built-in default (undefined for optional keys). */
  defaults(): Record<string, unknown> {
    return (this.defaultValues ??= this.schema.parse({}));
  }

  /** The documentation of a key, read from its schema (so docs cannot drift from it). */
  keyDoc(key: string): KeyDoc {
    this.docs ??= new Map(this.keys.map((k) => [k, { ...describeKey(this.keySchema(k)), owner: this.ownerOf.get(k)! }]));
    return this.docs.get(key)!;
  }

  /** `{system_one: {provider: "x"}}` → `{"system_one.provider": "x"}`; other keys pass through. */
  flatten(input: Record<string, unknown>): Record<string, unknown> {
    const flat: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      if (this.sectionNames.has(key) && isPlainObject(value)) {
        for (const [child, childValue] of Object.entries(value)) flat[`${key}.${child}`] = childValue;
      } else {
        flat[key] = value;
      }
    }
    return flat;
  }

  /** The inverse of flatten, keeping the order in which keys first appear. */
  nest(flat: Record<string, unknown>): Record<string, unknown> {
    const nested: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(flat)) {
      const dot = key.indexOf('.');
      const section = dot > 0 ? key.slice(0, dot) : '';
      if (!this.sectionNames.has(section)) {
        nested[key] = value;
        continue;
      }
      const child = Object.hasOwn(nested, section) && isPlainObject(nested[section]) ? (nested[section] as Record<string, unknown>) : {};
      child[key.slice(dot + 1)] = value;
      nested[section] = child;
    }
    return nested;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

type Def = { type: string; innerType?: z.ZodType; out?: z.ZodType; defaultValue?: unknown };
function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function describeKey(schema: z.ZodType): Omit<KeyDoc, 'owner'> {
  let current = schema;
  let fallback: unknown = undefined;
  let optional = false;
  // Unwrap default/optional/preprocess down to the type the value is stored as.
  for (let depth = 0; depth < 8; depth++) {
    const def = defOf(current);
    if (def.type === 'default') fallback = def.defaultValue;
    if (def.type === 'optional') optional = true;
    const next = def.type === 'pipe' ? def.out : def.innerType;
    if (!next) break;
    current = next;
  }
  return {
    type: typeName(current),
    default: fallback,
    optional,
    secret: isSecretSchema(schema),
    ...(manifestDefaultKindOf(schema) ? { defaultFromManifest: manifestDefaultKindOf(schema)! } : {}),
    description: schema.description ?? '',
  };
}

function typeName(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any' }) as {
    type?: string;
    enum?: unknown[];
    format?: string;
    minimum?: number;
    maximum?: number;
    pattern?: string;
  };
  if (json.enum) return `one of: ${json.enum.join(', ')}`;
  if (json.type === 'string') return json.format === 'uri' ? 'URL' : 'string';
  if (json.type === 'integer' || json.type === 'number') {
    const max = json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? json.maximum : undefined;
    const range =
    json.minimum !== undefined && max !== undefined
      ? ` (${json.minimum}..${max})`
      : json.minimum !== undefined
        ? ` (>= ${json.minimum})`
        : '';
    return `${json.type}${range}`;
  }
  return json.type ?? 'value';
}
