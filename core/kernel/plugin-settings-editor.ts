import { z } from 'zod';
import { ConfigError, type HealthResult } from '../sdk/index.js';
import { SECRET_MASK, envOnlyFields, secretFields } from '../sdk/settings.js';
import { maskUrlCredentials, unmaskEcho } from '../config/url-credentials.js';
import type { PluginConfigStore } from '../config/plugin-config-store.js';
import type { GenerationFactory } from './generation-factory.js';
import { describeError } from './generation-factory.js';
import { PluginNotAvailableError } from './lease-registry.js';
import type { DefinitionResolver, ResolvedPlugin } from './plugin-definition.js';
import type { PluginInstances } from './plugin-instances.js';
import type { PluginRecord, PluginRecords, PluginState } from './plugin-record.js';
import { nextStateFor } from './reconciler.js';
import { describeSettingFields, type SettingField } from './settings-fields.js';
import { resolveSettings, type SettingsContext, type SettingSource } from './settings-resolver.js';

export interface PluginConfigView {
  id: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  secrets: Record<string, { set: boolean }>;
  sources: Record<string, SettingSource>;
  /** The settings schema's fields, for a generated form. */
  fields: SettingField[];
}

export class SettingsValidationError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SettingsValidationError';
  }
}

export interface PluginSettingsEditorOptions {
  records: PluginRecords;
  resolver: DefinitionResolver;
  factory: GenerationFactory;
  configStore: PluginConfigStore;
  /** Instances take their settings from the host: shown, tested, never written here. */
  instances: PluginInstances;
  env: NodeJS.ProcessEnv;
  /** Where path settings may point and which variables are run-time values, as at start. */
  settingsContext?: () => SettingsContext;
  healthMs: number;
  /** Reloads one plugin and resolves when its reconcile is done. */
  reload: (pluginId: string) => Promise<void>;
}

/** Reads, validates, stores and trial-runs a plugin's `{enabled, settings}`; secrets stay masked. */
export class PluginSettingsEditor {
  constructor(private readonly options: PluginSettingsEditorOptions) {}

  async configView(id: string): Promise<PluginConfigView | undefined> {
    const record = this.options.records.get(id);
    if (!record) return undefined;
    const stored = this.storedOf(record);
    // A plugin whose code does not load shows what is stored; its error is in last_error.
    const { schema, envMap } = record.manifest ? await this.resolvedOf(record).catch(() => ({ schema: undefined, envMap: {} })) : { schema: undefined, envMap: {} };
    const secrets = new Set(secretFields(schema));
    const settings: Record<string, unknown> = {};
    const secretState: Record<string, { set: boolean }> = {};
    let sources: Record<string, SettingSource> = {};
    let effective: Record<string, unknown> = { ...stored.settings };
    try {
      // Paths shown as stored (not resolved): a bad one must not hide the others.
      const storedSource = this.options.instances.runInputs(record)?.storedSource;
      const resolved = resolveSettings(schema, stored.settings, envMap, this.options.env, { ...this.options.settingsContext?.(), paths: undefined, ...(storedSource ? { storedSource } : {}) });
      effective = resolved.values;
      sources = resolved.sources;
    } catch {
      // Invalid stored settings: show what is stored; the plugin reports needs-config.
    }
    for (const [k, v] of Object.entries(effective)) {
      if (secrets.has(k)) continue;
      settings[k] = typeof v === 'string' ? maskUrlCredentials(v) : v;
    }
    for (const k of secrets) {
      const set = effective[k] !== undefined && effective[k] !== '';
      secretState[k] = { set };
      settings[k] = set ? SECRET_MASK : null;
    }
    return { id, enabled: stored.enabled, settings, secrets: secretState, sources, fields: describeSettingFields(schema, envMap) };
  }

  /**
   * Validates and stores a plugin's `{enabled, settings}`, then reloads it on a new generation.
   * A secret sent as the mask (or left out) keeps its stored value; null clears it.
   */
  async updateConfig(id: string, update: { enabled?: boolean; settings?: Record<string, unknown> }): Promise<PluginConfigView> {
    const record = this.options.records.get(id);
    if (!record) throw new PluginNotAvailableError(id, 'config', 'unknown');
    this.refuseInstanceWrite(record, update.enabled === undefined ? 'settings' : 'enabled');
    const candidate = await this.candidateSettings(record, update.settings);
    const stored = this.options.configStore.get(id);
    await this.options.configStore.put(id, { enabled: update.enabled ?? stored.enabled, settings: candidate });
    await this.options.reload(id);
    return (await this.configView(id))!;
  }

  /** Starts a throwaway generation with candidate settings, runs its health check, stops it. */
  async testConfig(id: string, settings: Record<string, unknown> | undefined): Promise<HealthResult & { state: PluginState }> {
    const record = this.options.records.get(id);
    if (!record?.manifest || !record.file) throw new PluginNotAvailableError(id, 'config', record?.state ?? 'unknown');
    const candidate = await this.candidateSettings(record, settings);
    try {
      const resolved = await this.resolvedOf(record);
      const { generation } = await this.options.factory.build(record.id, record.manifest, resolved, candidate, -1, this.options.instances.runInputs(record));
      try {
        const health = await generation.health(this.options.healthMs);
        return { ...health, state: health.ok ? 'active' : 'failed' };
      } finally {
        await this.options.factory.stop(generation, 'config test finished');
      }
    } catch (err) {
      return { ok: false, detail: describeError(err), state: nextStateFor(err) };
    }
  }

  /** The record's definition as resolved by the last reconcile, or resolved now (disabled plugins). */
  private async resolvedOf(record: PluginRecord): Promise<ResolvedPlugin> {
    if (!record.manifest || !record.file) throw new PluginNotAvailableError(record.id, 'config', record.state);
    const located = this.options.resolver.locate(record.file, record.manifest);
    if (record.resolved?.key === located.key) return record.resolved;
    return this.options.resolver.resolve(record.manifest, located);
  }

  /** The config store's entry, or an instance's host-given settings (always enabled). */
  private storedOf(record: PluginRecord): { enabled: boolean; settings: Record<string, unknown> } {
    if (!record.instanceOf) return this.options.configStore.get(record.id);
    return { enabled: true, settings: this.options.instances.get(record.id)?.settings ?? {} };
  }

  private refuseInstanceWrite(record: PluginRecord, field: string): void {
    if (!record.instanceOf) return;
    const origin = this.options.instances.get(record.id)?.origin;
    throw new SettingsValidationError(field, `plugin "${record.id}" is an instance of ${record.instanceOf}: its settings come from the host${origin ? ` (${origin})` : ''} and are changed there`);
  }

  private async candidateSettings(record: PluginRecord, settings: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const stored = this.storedOf(record).settings;
    if (!settings) return stored;
    this.refuseInstanceWrite(record, 'settings');
    const { schema, envMap } = await this.resolvedOf(record).catch((err: unknown) => {
      if (err instanceof PluginNotAvailableError) throw err;
      throw new SettingsValidationError('settings', `settings cannot be checked while the plugin's code does not load: ${describeError(err)}`);
    });
    const secrets = new Set(secretFields(schema));
    const envOnly = new Set(envOnlyFields(schema));
    const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, unknown>) : undefined;
    const candidate: Record<string, unknown> = {};
    // Own properties only: `constructor` or `__proto__` must not pass for declared settings.
    const storedValue = (k: string) => (Object.hasOwn(stored, k) ? stored[k] : undefined);
    for (let [k, v] of Object.entries(settings)) {
      if (k === '__proto__' || (shape && !Object.hasOwn(shape, k))) throw new SettingsValidationError(k, `unknown setting "${k}"`);
      if (envOnly.has(k)) {
        // A path the plugin reads files from is never request-chosen; echoing the environment's value back is fine.
        const variable = envMap[k];
        if (v !== null && !(variable && this.options.env[variable] === v)) throw new SettingsValidationError(k, `setting "${k}" can only be set through its environment variable${variable ? ` ${variable}` : ''}`);
        continue;
      }
      if (secrets.has(k) && v === SECRET_MASK) {
        if (storedValue(k) !== undefined) candidate[k] = storedValue(k);
        continue;
      }
      if (v === null) continue;
      // A URL sent back as shown (its credentials masked) keeps the stored credentials.
      v = unmaskEcho(v, storedValue(k));
      // Each written value is checked on its own: a field the environment sets would hide a
      // bad stored value from the merged check below, until the variable goes away.
      const field = shape?.[k] as z.ZodType | undefined;
      const checked = field?.safeParse(v);
      if (checked && !checked.success) throw new SettingsValidationError(k, `setting "${k}": ${checked.error.issues[0]?.message ?? 'invalid value'}`);
      candidate[k] = v;
    }
    for (const k of secrets) if (!Object.hasOwn(settings, k) && storedValue(k) !== undefined) candidate[k] = storedValue(k);
    try {
      resolveSettings(schema, candidate, envMap, this.options.env, this.options.settingsContext?.() ?? {});
    } catch (err) {
      if (err instanceof ConfigError) throw new SettingsValidationError(err.field ?? 'settings', err.message);
      throw err;
    }
    return candidate;
  }
}
