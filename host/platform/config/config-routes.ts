import { z } from 'zod';
import type { HttpApi } from '../http/api.js';
import type { ConfigRegistry } from './registry.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf } from '../auth/access-guard.js';
import { CONFIG_WRITE_ERRORS, ConfigWriter } from './config-writer.js';

export interface ConfigRouteDeps {
  registry: ConfigRegistry;
  /** Every stored change is audited with the key names, never their values. */
  audit?: AuditLog;
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
    .describe('What the stored values will not do as expected (a selected backend that lacks what a surface needs of it, say). The write stands.'),
});

const ConfigPatch = z
  .record(z.string(), z.unknown())
  .describe(
    'Configuration keys to store in the JSON config file. Values may be typed JSON or strings ("10", "true"). ' +
      '"***" for a secret keeps the stored secret; null removes the key from the file (back to its default).',
  );

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
      errors: CONFIG_WRITE_ERRORS,
      responses: { 200: { description: 'Stored; the new effective configuration, secrets masked', schema: ConfigUpdateBody } },
    },
    async ({ body, res }) => {
      const done = await writer.write(body, { event: 'config_changed', by: actorOf(res) });
      return { config: done.config, source: done.source, env_overridden: done.envOverridden, written: done.written, warnings: done.warnings };
    },
  );
}
