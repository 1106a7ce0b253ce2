import { z } from 'zod';
import { ISOLATION_MODES, Kernel, PluginNotAvailableError } from '../../../core/kernel/kernel.js';
import { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE } from '../../../core/manifest/plugin-id.js';
import type { HttpApi } from '../http/api.js';
import { httpError } from '../http/error-catalogue.js';
import { CatalogueVersion, hostInRange, type RegistryCatalogue } from './registry-catalogue.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf } from '../auth/access-guard.js';

const Diagnostic = z.object({ severity: z.enum(['error', 'warning']), code: z.string(), path: z.string(), message: z.string() });
const Health = z.object({ ok: z.boolean(), detail: z.string().optional(), info: z.record(z.string(), z.unknown()).optional(), checkedAt: z.string() });
export const PluginEntry = z.object({
  id: z.string(),
  instance_of: z.string().nullable().describe('A kernel-managed instance (its settings given by the host, e.g. the URL of an alert target): the manifest it is an instance of; null for a plugin of its own'),
  name: z.string().nullable(),
  version: z.string().nullable(),
  description: z.string().nullable(),
  kinds: z.array(z.string()),
  state: z.string().describe('discovered | validated | rejected | starting | active | retrying | needs-config | failed | draining | stopped'),
  enabled: z.boolean(),
  generation: z.number().int().nullable().describe('The generation serving new calls'),
  generations: z.array(z.object({ number: z.number().int(), state: z.string(), leases: z.number().int(), started_at: z.string() })),
  health: Health.nullable(),
  last_error: z.string().nullable(),
  diagnostics: z.array(Diagnostic),
  manifest_path: z.string().nullable(),
  declarative: z.boolean(),
  maturity: z.string().nullable(),
  directions: z
    .array(z.enum(['inbound', 'outbound']))
    .nullable()
    .describe('Fax providers while active: the directions they serve (["inbound"] when started with only inbound settings); null otherwise'),
  isolation: z
    .object({
      mode: z.enum(ISOLATION_MODES).describe('process: a child process; worker: a worker thread; in-process: the gateway\'s own event loop'),
      pid: z.number().int().nullable().describe('The child process while a generation runs (process mode)'),
      thread_id: z.number().int().nullable().describe('The worker thread while a generation runs (worker mode)'),
      restarts: z.number().int().describe('Restarts after a crash or a limit (memory, call deadline, a blocked event loop) since the gateway started'),
      last_failure: z.string().nullable().describe('Why the last isolate stopped on its own or was stopped over a limit'),
    })
    .nullable()
    .describe('Where the code runs and how that went; null before a first start (and for declarative plugins never started)'),
});
export const PluginConfig = z.object({
  id: z.string(),
  enabled: z.boolean(),
  settings: z.record(z.string(), z.unknown()).describe('Effective settings; secret fields show "***" when set, null when not'),
  secrets: z.record(z.string(), z.object({ set: z.boolean() })),
  sources: z.record(z.string(), z.enum(['env', 'config', 'store', 'default'])).describe('config: the host configuration written at run time (a bridged key, an instance\'s settings)'),
  fields: z
    .array(
      z.object({
        name: z.string(),
        type: z.enum(['string', 'number', 'integer', 'boolean', 'enum', 'json']).describe('enum: one of options; json: any other shape, as JSON'),
        options: z.array(z.string()).optional(),
        required: z.boolean(),
        default: z.unknown().optional().describe('Absent for secrets'),
        description: z.string().optional(),
        secret: z.boolean().describe('Write-only: shown only as set or not'),
        env_only: z.boolean().describe('Refused over HTTP; set by its environment variable only'),
        env: z.string().nullable().describe('The environment variable that overrides this field'),
      }),
    )
    .describe("The settings schema's fields in order, for a generated form"),
});
const PluginConfigUpdate = z
  .object({
    enabled: z.boolean().optional(),
    settings: z.record(z.string(), z.unknown()).optional().describe('Secret fields: "***" or absent keeps the stored value, null clears it'),
  })
  .strict();
const IdParams = z.object({ id: z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE) });
const RegistryEntry = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string(),
  kinds: z.array(z.string()),
  maturity: z.string().optional(),
  builtin: z.boolean(),
  installed: z.boolean(),
  state: z.string().nullable(),
  tags: z.array(z.string()),
  versions: z.array(
    CatalogueVersion.extend({
      compatible: z.boolean().describe("Whether this host's version is in the range; an incompatible version is not installable (package_incompatible_host)"),
      incompatible: z.string().optional().describe('Why not, when it is not'),
    }),
  ),
});

const notFound = (id: string) => httpError('plugin_not_found', { id });

/**
 * The plugin in the path is this route's resource, so its absence is a 404 here (elsewhere an
 * unavailable plugin is a 503); a bad setting answers 400 through the domain mapping.
 */
function configFailure(err: unknown, id: string): never {
  if (err instanceof PluginNotAvailableError) throw notFound(id);
  throw err;
}

/**
 * Faxbot's SDKs and admin console read these routes too: lists are also served as `items`,
 * and a stored config answers `ok` and the store `path` beside our fields (docs/platform/admin.md).
 */
export function registerPluginRoutes(api: HttpApi, deps: { kernel: Kernel; catalogue: RegistryCatalogue; audit?: AuditLog; configStorePath: string; hostVersion: string }): void {
  const { kernel } = deps;
  const manage = { scope: 'plugins:manage', administrative: true } as const;
  // Writing and testing a plugin's settings take the same request: an id and candidate settings.
  const configWrite = { tags: ['plugins'], access: manage, params: IdParams, body: PluginConfigUpdate, bodyErrorStatus: 400 as const, errors: ['plugin_not_found'] };
  const read = { scope: 'admin', administrative: true } as const;

  api.route(
    {
      method: 'get',
      path: '/plugins',
      summary: 'Every plugin found, rejected ones too, with state, generation, health and diagnostics',
      mcp: { name: 'list_plugins', description: 'Every plugin with its state and health', hook: 'plugin-summaries' },
      tags: ['plugins'],
      access: read,
      responses: {
        200: {
          description: 'Plugin list',
          schema: z.object({ plugins: z.array(PluginEntry), items: z.array(PluginEntry).describe('The same list, where Faxbot clients read it') }),
        },
      },
    },
    () => {
      const plugins = kernel.list();
      return { plugins, items: plugins };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/plugins/:id',
      summary: 'One plugin',
      mcp: { name: 'plugin_health', description: 'One plugin with its state, health and diagnostics', aliases: { plugin_id: 'id' } },
      tags: ['plugins'],
      access: read,
      params: IdParams,
      errors: ['plugin_not_found'],
      responses: { 200: { description: 'The plugin', schema: PluginEntry } },
    },
    ({ params }) => kernel.get(params.id) ?? Promise.reject(notFound(params.id)),
  );

  api.route(
    {
      method: 'get',
      path: '/plugins/:id/config',
      summary: "A plugin's enabled flag and settings (secrets shown as set or not)",
      tags: ['plugins'],
      access: read,
      params: IdParams,
      errors: ['plugin_not_found'],
      responses: { 200: { description: 'Config', schema: PluginConfig } },
    },
    async ({ params }) => (await kernel.configView(params.id)) ?? Promise.reject(notFound(params.id)),
  );

  api.route(
    {
      method: 'put',
      path: '/plugins/:id/config',
      summary: 'Store enabled and settings; applies live on a new generation',
      description:
        'Validated against the plugin settings schema; a bad field answers 400 naming it and nothing is stored. ' +
        'A field whose environment variable is set is validated and stored too, but the environment keeps winning (listed in env_overridden).',
      ...configWrite,
      responses: {
        200: {
          description: 'Stored and applied',
          schema: PluginConfig.extend({
            plugin: PluginEntry,
            ok: z.literal(true).describe('Faxbot clients check it'),
            path: z.string().describe('The plugin config store file (SERVICE_CONFIG_PATH), as Faxbot clients expect'),
            env_overridden: z.array(z.string()).describe('Fields sent that the environment still overrides'),
          }),
        },
      },
    },
    async ({ params, body, res }) => {
      const wasEnabled = kernel.get(params.id)?.enabled;
      const config = await kernel.updateConfig(params.id, body).catch((err) => configFailure(err, params.id));
      // Names of the fields sent, never their values.
      const keys = [...(body.enabled === undefined ? [] : ['enabled']), ...Object.keys(body.settings ?? {}).sort().map((k) => `settings.${k}`)];
      deps.audit?.record('plugin_config_changed', { plugin: params.id, keys: keys.join(' '), by: actorOf(res) });
      if (body.enabled !== undefined && body.enabled !== wasEnabled) deps.audit?.record(body.enabled ? 'plugin_enabled' : 'plugin_disabled', { plugin: params.id, by: actorOf(res) });
      const envOverridden = Object.keys(body.settings ?? {}).filter((k) => Object.hasOwn(config.sources, k) && config.sources[k] === 'env');
      return { ok: true as const, path: deps.configStorePath, ...config, plugin: kernel.get(params.id), env_overridden: envOverridden };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/plugins/:id/config/test',
      summary: "Run the plugin's health check against candidate settings without saving them",
      ...configWrite,
      responses: {
        200: {
          description: 'Result of the check',
          schema: z.object({
            ok: z.boolean(),
            checked: z.enum(['shape', 'connection']).describe('connection: the provider was contacted; shape: only the settings were validated, the provider was not contacted'),
            detail: z.string().optional(),
            state: z.string(),
          }),
        },
      },
    },
    async ({ params, body }) => {
      const result = await kernel.testConfig(params.id, body.settings).catch((err) => configFailure(err, params.id));
      const checked = result.checked ?? 'shape';
      const detail = checked === 'shape' && result.ok ? [result.detail, 'only the settings were validated; the provider was not contacted'].filter(Boolean).join('; ') : result.detail;
      return { ok: result.ok, checked, state: result.state, ...(detail ? { detail } : {}) };
    },
  );

  api.route(
    {
      method: 'get',
      path: '/plugin-registry',
      summary: 'The curated catalogue (registry/index.json), each entry marked installed or not',
      tags: ['plugins'],
      access: read,
      responses: {
        200: {
          description: 'Catalogue',
          schema: z.object({ plugins: z.array(RegistryEntry), items: z.array(RegistryEntry).describe('The same list, where Faxbot clients read it'), problem: z.string().optional() }),
        },
      },
    },
    () => {
      const { entries, problem } = deps.catalogue.entries();
      const plugins = entries.map((e) => {
        const view = kernel.get(e.id);
        return {
          id: e.id,
          name: e.name,
          description: e.description,
          version: e.version,
          kinds: e.kinds,
          ...(e.maturity ? { maturity: e.maturity } : {}),
          builtin: e.builtin,
          installed: !!view,
          state: view?.state ?? null,
          tags: e.tags,
          versions: e.versions.map((v) =>
            hostInRange(v.host, deps.hostVersion) ? { ...v, compatible: true } : { ...v, compatible: false, incompatible: `needs host ${v.host}; this host is ${deps.hostVersion}` },
          ),
        };
      });
      return problem ? { plugins, items: plugins, problem } : { plugins, items: plugins };
    },
  );
}
