import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { HttpApi } from '../http/api.js';
import type { ConfigRegistry } from './registry.js';
import { keySchema, type ConfigKey } from './model/index.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf } from '../auth/access-guard.js';
import { CONFIG_WRITE_REFUSALS, ConfigWriter } from './config-writer.js';

export interface ConfigRouteDeps {
  registry: ConfigRegistry;
  /** Every stored change is audited with the key names, never their values. */
  audit?: AuditLog;
  /** The legacy editor settings file (out/editor/settings.json), resolved by the caller. */
  legacyEditorSettingsFile: string;
}


const ConfigViewBody = z.object({
  config: z
    .record(z.string(), z.unknown())
    .describe('Every configuration key with its effective value. Secrets that are set show "***"; unset keys are null.'),
  source: z
    .record(z.string(), z.string())
    .describe('Where each value comes from: "env", the JSON config file name, or "default".'),
});

const ConfigUpdateBody = ConfigViewBody.extend({
  env_overridden: z
    .array(z.string())
    .describe('Posted keys that were stored but keep the value from the environment, which wins.'),
  written: z.array(z.string()).describe('Posted keys stored in the config file (or removed from it, for null).'),
  warnings: z
    .array(z.string())
    .describe('What the stored values will not do as expected, e.g. a RETRIEVAL_BACKEND without write sessions that code search cannot index with. The write stands.'),
});

const ConfigPatch = z
  .record(z.string(), z.unknown())
  .describe(
    'Configuration keys to store in the JSON config file. Values may be typed JSON or strings ("10", "true"). ' +
      '"***" for a secret keeps the stored secret; null removes the key from the file (back to its default).',
  );

const EditorSettingsBody = z.object({
  port: z.number().int().describe('EDITOR_PORT'),
  enabled: z.boolean().describe('EDITOR_ENABLED'),
  embed_enabled: z.boolean().describe('EDITOR_EMBED_ENABLED'),
  bind: z.string().describe('EDITOR_BIND, e.g. "local" for loopback only'),
  image: z.string().describe('EDITOR_IMAGE, the container image of the editor'),
  source: z
    .enum(['registry', 'legacy', 'default'])
    .describe(
      '"registry" when any EDITOR_* key is set in the environment or the config file; "legacy" when none is and ' +
        'the legacy out/editor/settings.json supplied values; "default" otherwise.',
    ),
});

export type EditorSettings = z.infer<typeof EditorSettingsBody>;

const ADMIN = { scope: 'admin', administrative: true } as const;

export function registerConfigRoutes(api: HttpApi, deps: ConfigRouteDeps): void {
  const { registry } = deps;
  const writer = new ConfigWriter({ config: registry, audit: deps.audit });

  api.route(
    {
      method: 'get',
      path: '/api/config',
      summary: 'Effective configuration',
      description: 'The merged configuration (environment > JSON config file > defaults) and the source of every key.',
      tags: ['config'],
      access: ADMIN,
      responses: { 200: { description: 'Effective configuration, secrets masked', schema: ConfigViewBody } },
    },
    () => registry.masked(),
  );

  api.route(
    {
      method: 'post',
      path: '/api/config',
      summary: 'Store configuration keys',
      description:
        'Validates the whole resulting configuration, then replaces the JSON config file atomically. ' +
        'Nothing is written when any key is invalid or unknown. Keys set in the environment are stored, ' +
        'but keep their environment value (listed in env_overridden).',
      tags: ['config'],
      access: ADMIN,
      body: ConfigPatch,
      responses: { 200: { description: 'Stored; the new effective configuration, secrets masked', schema: ConfigUpdateBody }, ...CONFIG_WRITE_REFUSALS },
    },
    async ({ body, res }) => {
      const done = await writer.write(body, { event: 'config_changed', by: actorOf(res) });
      return { config: done.config, source: done.source, env_overridden: done.envOverridden, written: done.written, warnings: done.warnings };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/api/editor/settings',
      summary: 'Editor settings',
      description:
        'The EDITOR_* keys of the registry when any of them is set (environment or config file); otherwise the ' +
        'legacy out/editor/settings.json when it holds any of these fields; otherwise the defaults.',
      tags: ['config', 'editor'],
      access: ADMIN,
      responses: { 200: { description: 'Editor settings', schema: EditorSettingsBody } },
    },
    () => resolveEditorSettings(registry, deps.legacyEditorSettingsFile),
  );
}

const EDITOR_KEYS = {
  port: 'EDITOR_PORT',
  enabled: 'EDITOR_ENABLED',
  embed_enabled: 'EDITOR_EMBED_ENABLED',
  bind: 'EDITOR_BIND',
  image: 'EDITOR_IMAGE',
} as const satisfies Record<string, ConfigKey>;

type EditorField = keyof typeof EDITOR_KEYS;
const EDITOR_FIELDS = Object.keys(EDITOR_KEYS) as EditorField[];

/**
 * All or nothing per source, so one response never mixes a registry port with a legacy
 * image: once any EDITOR_* key is configured, the legacy file is no longer read.
 */
export async function resolveEditorSettings(registry: ConfigRegistry, legacyFile: string): Promise<EditorSettings> {
  const { source } = registry.effective();
  const fromRegistry = EDITOR_FIELDS.some((field) => source[EDITOR_KEYS[field]] !== 'default');
  const settings = {
    port: registry.get('EDITOR_PORT'),
    enabled: registry.get('EDITOR_ENABLED'),
    embed_enabled: registry.get('EDITOR_EMBED_ENABLED'),
    bind: registry.get('EDITOR_BIND'),
    image: registry.get('EDITOR_IMAGE'),
  };
  if (fromRegistry) return { ...settings, source: 'registry' };

  const legacy = await readLegacyEditorSettings(legacyFile);
  if (!Object.keys(legacy).length) return { ...settings, source: 'default' };
  return { ...settings, ...legacy, source: 'legacy' };
}

// The legacy file's fields, each validated like its registry key; bad fields are left out.
async function readLegacyEditorSettings(file: string): Promise<Partial<Omit<EditorSettings, 'source'>>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return {}; // missing or unreadable: there is no legacy file to fall back to
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const found: Record<string, unknown> = {};
  for (const field of EDITOR_FIELDS) {
    const raw = (value as Record<string, unknown>)[field];
    if (raw === undefined || raw === null) continue;
    const parsed = keySchema(EDITOR_KEYS[field]).safeParse(raw);
    if (parsed.success) found[field] = parsed.data;
  }
  return found as Partial<Omit<EditorSettings, 'source'>>;
}
