import { z } from 'zod';
import { isSecretSchema } from '../../../../core/sdk/settings.js';
import type { ProviderKind } from '../../../../core/sdk/contracts/index.js';
import { manifestDefaultKindOf } from './field-kinds.js';
import { HostKeys } from './host.js';
import { PluginsKeys } from './plugins.js';
import { SecurityKeys } from './security.js';
import { FaxKeys } from './fax.js';
import { SearchKeys } from './search.js';
import { ModelsKeys } from './models.js';
import { EditorKeys } from './editor.js';
import { VendorSecretsKeys } from './vendor-secrets.js';
import { SystemOneKeys } from './system-one.js';
import { DockerKeys } from './docker.js';
import { JudgeKeys } from './judge.js';
import { AlertKeys } from './alerts.js';
import { checkWebhookLoopback } from './webhook-targets.js';
import { EmbeddingKeys } from './embedding.js';

/** The root model of the configuration registry: every key, its type, default and meaning, by feature. */
export const ConfigModel = z
  .object({
    ...HostKeys,
    ...PluginsKeys,
    ...SecurityKeys,
    ...FaxKeys,
    ...SearchKeys,
    ...ModelsKeys,
    ...EditorKeys,
    ...VendorSecretsKeys,
    ...SystemOneKeys,
    ...DockerKeys,
    ...JudgeKeys,
    ...AlertKeys,
    ...EmbeddingKeys,
  })
  .strict()
  .superRefine(checkWebhookLoopback);

export type Config = z.infer<typeof ConfigModel>;
export type ConfigKey = keyof Config;

export const CONFIG_KEYS = Object.keys(ConfigModel.shape) as ConfigKey[];

/** Keys whose values never leave the process in clear: masked in responses and logs. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(
  CONFIG_KEYS.filter((key) => isSecretSchema(ConfigModel.shape[key] as z.ZodType)),
);

/**
 * The configuration keys that can only be set in the environment: keys that name files or
 * directories on the server, and switches that weaken a check
 * (ALERT_ALLOW_HTTP_LOOPBACK, OUTBOUND_ALLOW_HOSTS, PLUGIN_PATHS_ALLOW, ALLOWED_HOSTS). They are read from the
 * environment (or the env file) only, never written through the API nor read from the JSON
 * config file, so no request can point a read or a write at a path of its choosing, or turn a
 * check off.
 */
export const ENV_ONLY_KEYS: ReadonlySet<string> = new Set(['DATA_DIR', 'ADMIN_SETTINGS_PERSIST_PATH', 'AUDIT_LOG_FILE', 'SERVICE_CONFIG_PATH', 'MANIFESTS_DIR', 'PLUGINS_PATH', 'DOCKER_HOST', 'WEB_DIST_DIR', 'SELFHOSTED_CHECKPOINTS_DIR', 'ALERT_WEBHOOK_CA_FILE', 'ALERT_ALLOW_HTTP_LOOPBACK', 'REPOS', 'OUTBOUND_ALLOW_HOSTS', 'PLUGIN_PATHS_ALLOW', 'ALLOWED_HOSTS', 'MCP_OUTBOX_DIR']);

/** Names of nested sections: `system_one` for the keys `system_one.*`. */
export const SECTION_NAMES: ReadonlySet<string> = new Set(CONFIG_KEYS.filter((key) => key.includes('.')).map((key) => key.slice(0, key.indexOf('.'))));

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(ConfigModel.shape, key);
}

/** The schema of one key, for validating a value from a single source. */
export function keySchema(key: ConfigKey): z.ZodType {
  return ConfigModel.shape[key] as z.ZodType;
}

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
}

/** The documentation of every key, read from the model (so docs cannot drift from it). */
export const KEY_DOCS: Readonly<Record<ConfigKey, KeyDoc>> = Object.fromEntries(
  CONFIG_KEYS.map((key) => [key, describeKey(keySchema(key))]),
) as Record<ConfigKey, KeyDoc>;

type Def = { type: string; innerType?: z.ZodType; out?: z.ZodType; defaultValue?: unknown };
function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function describeKey(schema: z.ZodType): KeyDoc {
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
