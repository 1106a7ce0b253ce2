import type { AuditLog } from '../audit/audit-log.js';
import type { ConfigIssue, ConfigRegistry, ConfigValues, ConfigView } from './registry.js';

/** What a stored write did; each API answers it in its own documented shape. */
export interface ConfigWrite extends ConfigView {
  /** Keys whose effective value changed. */
  changed: string[];
  /** Posted keys stored in the config file (or removed from it, for null). */
  written: string[];
  /** Posted keys stored but still overridden by the environment. */
  envOverridden: string[];
  /** What the stored values will not do as expected (the registry's advisors); the write stands. */
  warnings: string[];
}

/** The codes a write answers beyond its validation (`validation_error`, 422: nothing was written), for the routes that write through ConfigWriter. */
export const CONFIG_WRITE_ERRORS = ['config_file_unreadable'] as const;

/** Who wrote, and the audit event the API records its writes under. */
export interface ConfigWriteOrigin {
  event: 'settings_changed' | 'config_changed';
  /** The key id, or the kind of caller (actorOf). */
  by: string;
}

/**
 * The one path by which the HTTP API changes the configuration registry: POST /api/config,
 * PUT /admin/settings and its dry run POST /admin/settings/validate are adapters of it.
 */
export class ConfigWriter {
  constructor(private readonly deps: { config: ConfigRegistry<ConfigValues>; audit?: AuditLog | undefined }) {}

  /** What a write of `patch` would be refused for, each key named (the write's own validation); nothing is stored. */
  check(patch: Record<string, unknown>): Promise<ConfigIssue[]> {
    return this.deps.config.check(patch);
  }

  /**
   * Validates and stores `patch` (ConfigValidationError, 422, and ConfigFileUnreadableError, 409,
   * answer through the domain mapping), audits it and collects the advisors' warnings.
   */
  async write(patch: Record<string, unknown>, origin: ConfigWriteOrigin): Promise<ConfigWrite> {
    const { config, audit } = this.deps;
    const before = config.all();
    const result = await config.update(patch);
    const after = config.all();
    const changed = config.model.keys.filter((k) => !Object.is(before[k], after[k]));
    // Every accepted write is audited, a no-op one too: key names only, never values.
    audit?.record(origin.event, {
      keys: Object.keys(patch).sort().join(' '),
      written: result.written.join(' '),
      changed: changed.join(' '),
      env_overridden: result.envOverridden.join(' '),
      by: origin.by,
    });
    const warnings = await config.advise(result.written);
    return { config: result.config, source: result.source, changed, written: result.written, envOverridden: result.envOverridden, warnings };
  }
}
