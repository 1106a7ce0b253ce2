import { z } from 'zod';
import type { ConfigRegistry } from '../config/registry.js';
import { startedOnSettingsValidation } from '../config/model/field-kinds.js';
import { CONFIG_WRITE_ERRORS, ConfigWriter } from '../config/config-writer.js';
import { writeFileAtomic } from '../../../core/config/atomic-file.js';
import { SettingsValidationError, PluginNotAvailableError, type Kernel } from '../../../core/kernel/kernel.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf } from '../auth/access-guard.js';
import type { HttpApi } from '../http/api.js';
import { renderEnvSnippet, REVEAL_CONFIRMATION } from './env-snippet.js';
import { httpError, invalid } from '../http/error-catalogue.js';

const ADMIN = { scope: 'admin', administrative: true } as const;

const PluginState = z.object({ id: z.string(), state: z.string(), enabled: z.boolean(), kinds: z.array(z.string()), generation: z.number().int().nullable(), last_error: z.string().nullable() });
export const AdminSettingsView = z.object({
  config: z.record(z.string(), z.unknown()).describe('Every key; secrets that are set show "***", unset keys null'),
  source: z.record(z.string(), z.string()).describe('"env", the config file name, or "default"'),
  problems: z.array(z.string()).describe('Values that were ignored while loading'),
  plugins: z.array(PluginState),
});
const SettingsPatch = z.record(z.string(), z.unknown()).describe('Configuration keys and values (typed JSON or strings); "***" keeps a secret; null returns a key to its default');
export const ValidateBody = z
  .object({
    settings: SettingsPatch.default({}),
    plugins: z.record(z.string(), z.object({ settings: z.record(z.string(), z.unknown()) }).strict()).optional().describe('Candidate plugin settings by plugin id'),
  })
  .strict();
const Problem = z.object({ key: z.string(), message: z.string() });
const PluginCheck = z.object({ ok: z.boolean(), state: z.string(), detail: z.string().optional() });
export const ValidateResult = z.object({
  ok: z.boolean(),
  problems: z.array(Problem).describe('Settings that fail the root model, each named'),
  plugins: z.record(z.string(), PluginCheck).describe('Health of each checked plugin started on the candidate settings (the fax backend always)'),
});
const PutBody = z.object({ settings: SettingsPatch }).strict();
export const PutResult = z.object({
  changed: z.array(z.string()).describe('Keys whose effective value changed'),
  written: z.array(z.string()).describe('Keys stored in the JSON config file (or removed, for null)'),
  env_overridden: z.array(z.string()).describe('Keys stored but still overridden by the environment'),
  config: z.record(z.string(), z.unknown()),
  source: z.record(z.string(), z.string()),
});
const ExportQuery = z.object({
  reveal: z.enum(['true', 'false']).default('false'),
  confirm: z.string().max(50).optional().describe(`With reveal=true, exactly "${REVEAL_CONFIRMATION}"`),
  all: z.enum(['true', 'false']).default('false').describe('Include keys at their default'),
});

function pluginStates(kernel: Kernel): Array<z.infer<typeof PluginState>> {
  return kernel.list().map((p) => ({ id: p.id, state: p.state, enabled: p.enabled, kinds: p.kinds, generation: p.generation, last_error: p.last_error }));
}

export interface SettingsRouteDeps {
  config: ConfigRegistry;
  kernel: Kernel;
  audit: AuditLog;
}

/** The admin settings surface: view, validate, apply, reload, export and persist. */
export function registerAdminSettingsRoutes(api: HttpApi, deps: SettingsRouteDeps): void {
  const { config, kernel, audit } = deps;
  const writer = new ConfigWriter({ config, audit });

  const routes = api.group({ tags: ['admin'], access: ADMIN });

  routes.route(
    {
      method: 'get',
      path: '/admin/settings',
      summary: 'Sanitized effective settings with their sources, plus plugin states',
      responses: { 200: { description: 'Settings', schema: AdminSettingsView } },
    },
    () => ({ ...config.masked(), problems: config.problems(), plugins: pluginStates(kernel) }),
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/settings/validate',
      summary: 'Check candidate settings without changing anything',
      description: "Validates each key against the configuration model, then starts the backend each backend key marked for it names (the fax backend; candidate or current value) and every plugin named in `plugins` on the candidate settings, runs its health check and stops it.",
      body: ValidateBody,
      responses: { 200: { description: 'The verdict', schema: ValidateResult } },
    },
    async ({ body }) => {
      const problems = await writer.check(body.settings);
      // The backends a candidate would switch to (or the current ones) are started as they would run.
      const { model } = config;
      const current = config.effective().config;
      const backends = model.keys.filter((key) => startedOnSettingsValidation(model.keySchema(key))).map((key) => {
        const candidate = body.settings[key];
        return typeof candidate === 'string' && !problems.some((p) => p.key === key) ? candidate : String(current[key]);
      });
      const ids = new Set([...backends, ...Object.keys(body.plugins ?? {})]);
      const plugins: Record<string, z.infer<typeof PluginCheck>> = {};
      for (const id of ids) {
        try {
          const result = await kernel.testConfig(id, body.plugins?.[id]?.settings);
          plugins[id] = { ok: result.ok, state: result.state, ...(result.detail ? { detail: result.detail } : {}) };
        } catch (err) {
          if (err instanceof SettingsValidationError) plugins[id] = { ok: false, state: 'needs-config', detail: err.message };
          else if (err instanceof PluginNotAvailableError) plugins[id] = { ok: false, state: err.state, detail: err.message };
          else throw err;
        }
      }
      return { ok: problems.length === 0 && Object.values(plugins).every((p) => p.ok), problems, plugins };
    },
  );

  routes.route(
    {
      method: 'put',
      path: '/admin/settings',
      summary: 'Apply settings live (stored in the JSON config file)',
      description: 'The whole candidate is validated first; nothing is stored when a key is bad. Keys set in the environment are stored but keep their environment value.',
      body: PutBody,
      errors: CONFIG_WRITE_ERRORS,
      responses: { 200: { description: 'Applied', schema: PutResult } },
    },
    async ({ body, res }) => {
      const done = await writer.write(body.settings, { event: 'settings_changed', by: actorOf(res) });
      return { changed: done.changed, written: done.written, env_overridden: done.envOverridden, config: done.config, source: done.source };
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/settings/reload',
      summary: 'Re-read the env file and config file, and rescan plugins',
      responses: { 200: { description: 'Reloaded', schema: z.object({ changed: z.array(z.string()), problems: z.array(z.string()), plugins: z.array(PluginState) }) } },
    },
    async ({ res }) => {
      const changed = config.reload();
      await kernel.rescan();
      audit.record('settings_reloaded', { changed: changed.join(' '), by: actorOf(res) });
      return { changed, problems: config.problems(), plugins: pluginStates(kernel) };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/settings/export',
      summary: 'The effective settings as an env-file snippet',
      description: `Keys not at their default (all=true: every key), each preceded by its source. Secrets show "***" unless reveal=true with confirm="${REVEAL_CONFIRMATION}".`,
      query: ExportQuery,
      responses: { 200: { description: 'Env file text', contentType: 'text/plain' } },
    },
    ({ query, res }) => {
      const reveal = query.reveal === 'true';
      if (reveal && query.confirm !== REVEAL_CONFIRMATION) throw invalid('confirm', `reveal=true needs confirm=${REVEAL_CONFIRMATION}`, 400);
      if (reveal) audit.record('settings_exported', { revealed: true, by: actorOf(res) });
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.send(renderEnvSnippet(config, { reveal, all: query.all === 'true' }));
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/settings/persist',
      summary: 'Write the effective settings (secrets included) to ADMIN_SETTINGS_PERSIST_PATH as an env file',
      description: 'Only when ADMIN_SETTINGS_PERSIST_PATH is set; written atomically with mode 0600. Secrets are written in clear so the file can be loaded back (ENV_FILE).',
      errors: ['settings_persist_disabled'],
      responses: { 200: { description: 'Written', schema: z.object({ path: z.string(), keys: z.number().int() }) } },
    },
    async ({ res }) => {
      const target = config.get('ADMIN_SETTINGS_PERSIST_PATH');
      if (!target) throw httpError('settings_persist_disabled');
      const text = renderEnvSnippet(config, { reveal: true, all: false });
      await writeFileAtomic(target, text, { private: true });
      const keys = text.split('\n').filter((l) => l && !l.startsWith('#')).length;
      audit.record('settings_persisted', { keys, by: actorOf(res) });
      return { path: target, keys };
    },
  );
}
