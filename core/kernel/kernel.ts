import 'reflect-metadata';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Gauge } from 'prom-client';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { z } from 'zod';
import {
  AuthError,
  ConfigError,
  CONTRACT_VERSIONS,
  NotReadyError,
  type HealthResult,
  type PluginDefinition,
  type ProviderKind,
} from '../sdk/index.js';
import { SECRET_MASK, secretFields } from '../sdk/settings.js';
import { parseManifestText, settingsSchemaFromManifest, envMapFromManifest, type Manifest, type ManifestDiagnostic } from '../manifest/index.js';
import type { PluginConfigStore } from '../config/plugin-config-store.js';
import { findManifests, type ManifestFile } from './manifest-source.js';
import { loadEntry, resolveEntry, type EntryRoots } from './entry-loader.js';
import { Generation, TimeoutError, withTimeout, type Lease } from './generation.js';
import { createPluginContext } from './plugin-context.js';
import { resolveEgress } from './egress.js';
import { PluginMetricsFactory } from './plugin-metrics.js';
import { ReloadQueue } from './reload-queue.js';
import { resolveSettings, secretValues, type SettingSource } from './settings-resolver.js';
import { ManifestWatcher } from './manifest-watcher.js';

export type PluginState =
  | 'discovered'
  | 'validated'
  | 'rejected'
  | 'starting'
  | 'active'
  | 'retrying'
  | 'needs-config'
  | 'failed'
  | 'draining'
  | 'stopped';

/** Builds the definition of a manifest-defined (declarative) plugin, e.g. the `http` block. */
export type DeclarativeFactory = (manifest: Manifest) => PluginDefinition;

export interface KernelOptions {
  hostVersion: string;
  /** manifests/ first, then PLUGINS_PATH directories. */
  searchPaths: string[];
  roots: EntryRoots;
  configStore: PluginConfigStore;
  env?: NodeJS.ProcessEnv;
  dataDir: string;
  logger: Logger;
  metrics: Registry;
  timeouts?: { startMs?: number; stopMs?: number; drainMs?: number; healthMs?: number };
  backoff?: { initialMs?: number; maxMs?: number };
  declarative?: Partial<Record<'http' | 'alert', DeclarativeFactory>>;
  /** Watch the search path and the config store for changes (hot reload). */
  watch?: boolean;
  onEgressDenied?: (pluginId: string, url: URL) => void;
}

interface PluginRecord {
  id: string;
  file?: ManifestFile;
  manifest?: Manifest;
  diagnostics: ManifestDiagnostic[];
  state: PluginState;
  active?: Generation;
  draining: Set<Generation>;
  counter: number;
  lastError?: string;
  health?: HealthResult & { checkedAt: string };
  settingSources: Record<string, SettingSource>;
  /** What the active generation was built from; an equal fingerprint needs no reload. */
  fingerprint?: string;
  retry?: { attempt: number; timer?: NodeJS.Timeout };
}

export interface PluginView {
  id: string;
  name: string | null;
  version: string | null;
  description: string | null;
  kinds: ProviderKind[];
  state: PluginState;
  enabled: boolean;
  generation: number | null;
  generations: Array<{ number: number; state: string; leases: number; started_at: string }>;
  health: (HealthResult & { checkedAt: string }) | null;
  last_error: string | null;
  diagnostics: ManifestDiagnostic[];
  manifest_path: string | null;
  declarative: boolean;
  maturity: string | null;
}

export interface PluginConfigView {
  id: string;
  enabled: boolean;
  settings: Record<string, unknown>;
  secrets: Record<string, { set: boolean }>;
  sources: Record<string, SettingSource>;
}

export class PluginNotAvailableError extends Error {
  constructor(
    readonly pluginId: string,
    readonly kind: string,
    readonly state: PluginState | 'unknown',
  ) {
    super(state === 'unknown' ? `no plugin "${pluginId}" is installed` : `plugin "${pluginId}" is not active (state: ${state}) for ${kind}`);
    this.name = 'PluginNotAvailableError';
  }
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

/**
 * The kernel: finds manifests, validates them, starts each plugin as a generation, swaps
 * generations on change through one serial reload queue and hands out leases to callers.
 */
export class Kernel {
  readonly events = new EventEmitter();
  private readonly records = new Map<string, PluginRecord>();
  private readonly queue = new ReloadQueue((key) => this.process(key));
  private readonly metricsFactory: PluginMetricsFactory;
  private readonly container: DependencyContainer = rootContainer.createChildContainer();
  private readonly env: NodeJS.ProcessEnv;
  private readonly timeouts: Required<NonNullable<KernelOptions['timeouts']>>;
  private readonly backoff: Required<NonNullable<KernelOptions['backoff']>>;
  private watcher?: ManifestWatcher;
  private stopped = false;
  private idByPath = new Map<string, string>();
  private readonly stateGauge: Gauge<string>;

  constructor(private readonly options: KernelOptions) {
    this.env = options.env ?? process.env;
    this.metricsFactory = new PluginMetricsFactory(options.metrics);
    this.timeouts = { startMs: 10_000, stopMs: 5_000, drainMs: 30_000, healthMs: 5_000, ...options.timeouts };
    this.backoff = { initialMs: 500, maxMs: 30_000, ...options.backoff };
    this.stateGauge = new Gauge({
      name: 'switchboard_plugin_active_generation',
      help: 'Active generation number per plugin (0 when none)',
      labelNames: ['plugin'],
      registers: [options.metrics],
      collect: () => {
        this.stateGauge.reset();
        for (const r of this.records.values()) this.stateGauge.set({ plugin: r.id }, r.active?.number ?? 0);
      },
    });
    this.events.setMaxListeners(100);
  }

  /** First scan (every plugin settled), then the watcher. */
  async start(): Promise<void> {
    await this.queue.request('scan');
    if (this.options.watch !== false) {
      this.watcher = new ManifestWatcher(this.options.searchPaths, [this.options.configStore.file], () => {
        void this.queue.request('scan');
      });
      await this.watcher.ready();
    }
  }

  /** Rescans the search path and the config store now; resolves when applied. */
  rescan(): Promise<void> {
    return this.queue.request('scan');
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.watcher?.close();
    await this.queue.idle();
    const stops: Promise<void>[] = [];
    for (const record of this.records.values()) {
      if (record.retry?.timer) clearTimeout(record.retry.timer);
      if (record.active) stops.push(this.retire(record, record.active, 'host stopping'));
      record.active = undefined;
    }
    await Promise.all(stops);
  }

  // ---- leases -------------------------------------------------------------------------

  /** A lease on the active generation of `pluginId` for `kind`. Release it when done. */
  lease<K extends ProviderKind>(kind: K, pluginId: string): Lease<K> {
    const record = this.records.get(pluginId);
    if (!record) throw new PluginNotAvailableError(pluginId, kind, 'unknown');
    const gen = record.active;
    if (!gen || !gen.provides(kind)) throw new PluginNotAvailableError(pluginId, kind, record.state);
    return gen.acquire(kind);
  }

  /** Runs `fn` with the provider of the active generation, holding a lease throughout. */
  async withProvider<K extends ProviderKind, T>(kind: K, pluginId: string, fn: (provider: Lease<K>['provider'], lease: Lease<K>) => Promise<T>): Promise<T> {
    const lease = this.lease(kind, pluginId);
    try {
      return await fn(lease.provider, lease);
    } finally {
      lease.release();
    }
  }

  /** Whether `pluginId` can serve `kind` right now. */
  isActive(kind: ProviderKind, pluginId: string): boolean {
    return !!this.records.get(pluginId)?.active?.provides(kind);
  }

  stateOf(pluginId: string): PluginState | 'unknown' {
    return this.records.get(pluginId)?.state ?? 'unknown';
  }

  /** Ids of active plugins that provide `kind`. */
  providersOf(kind: ProviderKind): string[] {
    return [...this.records.values()].filter((r) => r.active?.provides(kind)).map((r) => r.id);
  }

  // ---- views ------------------------------------------------------------------------------

  list(): PluginView[] {
    return [...this.records.values()].sort((a, b) => a.id.localeCompare(b.id)).map((r) => this.view(r));
  }

  get(id: string): PluginView | undefined {
    const r = this.records.get(id);
    return r ? this.view(r) : undefined;
  }

  private view(r: PluginRecord): PluginView {
    const m = r.manifest;
    const gens = [...(r.active ? [r.active] : []), ...r.draining];
    return {
      id: r.id,
      name: m?.name ?? null,
      version: m?.version ?? null,
      description: m?.description ?? null,
      kinds: (m?.provides ?? []).map((p) => p.kind as ProviderKind),
      state: r.state,
      enabled: this.options.configStore.get(r.id).enabled,
      generation: r.active?.number ?? null,
      generations: gens.map((g) => ({ number: g.number, state: g.state, leases: g.activeLeases, started_at: g.startedAt.toISOString() })),
      health: r.health ?? null,
      last_error: r.lastError ?? null,
      diagnostics: r.diagnostics,
      manifest_path: r.file?.path ?? null,
      declarative: !!m && !('entry' in m && m.entry),
      maturity: m?.maturity ?? null,
    };
  }

  /** Runs the health check of every active plugin and records the results. */
  async checkHealth(id?: string): Promise<Record<string, HealthResult>> {
    const out: Record<string, HealthResult> = {};
    await Promise.all(
      [...this.records.values()]
        .filter((r) => (id ? r.id === id : true) && r.active)
        .map(async (r) => {
          const result = await r.active!.health(this.timeouts.healthMs);
          r.health = { ...result, checkedAt: new Date().toISOString() };
          out[r.id] = result;
        }),
    );
    return out;
  }

  // ---- configuration ----------------------------------------------------------------------

  /**
   * The resolved settings (secrets in clear) the active generation of `pluginId` runs with;
   * undefined when it has none. For host code that shares a plugin's secrets (inbound webhook
   * signatures); never for responses or logs.
   */
  settingsOf(pluginId: string): Record<string, unknown> | undefined {
    const settings = this.records.get(pluginId)?.active?.owned.ctx.settings;
    return settings ? { ...settings } : undefined;
  }

  async configView(id: string): Promise<PluginConfigView | undefined> {
    const record = this.records.get(id);
    if (!record) return undefined;
    const stored = this.options.configStore.get(id);
    const { schema, envMap } = await this.settingsShape(record);
    const secrets = new Set(secretFields(schema));
    const settings: Record<string, unknown> = {};
    const secretState: Record<string, { set: boolean }> = {};
    let sources: Record<string, SettingSource> = {};
    let effective: Record<string, unknown> = { ...stored.settings };
    try {
      const resolved = resolveSettings(schema, stored.settings, envMap, this.env);
      effective = resolved.values;
      sources = resolved.sources;
    } catch {
      // Invalid stored settings: show what is stored; the plugin reports needs-config.
    }
    for (const [k, v] of Object.entries(effective)) {
      if (secrets.has(k)) continue;
      settings[k] = v;
    }
    for (const k of secrets) {
      const set = effective[k] !== undefined && effective[k] !== '';
      secretState[k] = { set };
      settings[k] = set ? SECRET_MASK : null;
    }
    return { id, enabled: stored.enabled, settings, secrets: secretState, sources };
  }

  /**
   * Validates and stores a plugin's `{enabled, settings}`, then reloads it on a new generation.
   * A secret sent as the mask (or left out) keeps its stored value; null clears it.
   */
  async updateConfig(id: string, update: { enabled?: boolean; settings?: Record<string, unknown> }): Promise<PluginConfigView> {
    const record = this.records.get(id);
    if (!record) throw new PluginNotAvailableError(id, 'config', 'unknown');
    const candidate = await this.candidateSettings(record, update.settings);
    const stored = this.options.configStore.get(id);
    await this.options.configStore.put(id, { enabled: update.enabled ?? stored.enabled, settings: candidate });
    await this.queue.request(`plugin:${id}`);
    return (await this.configView(id))!;
  }

  /** Starts a throwaway generation with candidate settings, runs its health check, stops it. */
  async testConfig(id: string, settings: Record<string, unknown> | undefined): Promise<HealthResult & { state: PluginState }> {
    const record = this.records.get(id);
    if (!record?.manifest || !record.file) throw new PluginNotAvailableError(id, 'config', record?.state ?? 'unknown');
    const candidate = await this.candidateSettings(record, settings);
    const definition = await this.definitionFor(record.file, record.manifest);
    try {
      const gen = await this.buildGeneration(record, definition, candidate, -1);
      try {
        const health = await gen.health(this.timeouts.healthMs);
        return { ...health, state: health.ok ? 'active' : 'failed' };
      } finally {
        await this.stopGeneration(gen, 'config test finished');
      }
    } catch (err) {
      return { ok: false, detail: describeError(err), state: nextStateFor(err) };
    }
  }

  private async candidateSettings(record: PluginRecord, settings: Record<string, unknown> | undefined): Promise<Record<string, unknown>> {
    const stored = this.options.configStore.get(record.id).settings;
    if (!settings) return stored;
    const { schema, envMap } = await this.settingsShape(record);
    const secrets = new Set(secretFields(schema));
    const shape = schema instanceof z.ZodObject ? (schema.shape as Record<string, unknown>) : undefined;
    const candidate: Record<string, unknown> = {};
    // Own properties only: `constructor` or `__proto__` must not pass for declared settings.
    const storedValue = (k: string) => (Object.hasOwn(stored, k) ? stored[k] : undefined);
    for (const [k, v] of Object.entries(settings)) {
      if (k === '__proto__' || (shape && !Object.hasOwn(shape, k))) throw new SettingsValidationError(k, `unknown setting "${k}"`);
      if (secrets.has(k) && v === SECRET_MASK) {
        if (storedValue(k) !== undefined) candidate[k] = storedValue(k);
        continue;
      }
      if (v === null) continue;
      // Each written value is checked on its own: a field the environment sets would hide a
      // bad stored value from the merged check below, until the variable goes away.
      const field = shape?.[k] as z.ZodType | undefined;
      const checked = field?.safeParse(v);
      if (checked && !checked.success) throw new SettingsValidationError(k, `setting "${k}": ${checked.error.issues[0]?.message ?? 'invalid value'}`);
      candidate[k] = v;
    }
    for (const k of secrets) if (!Object.hasOwn(settings, k) && storedValue(k) !== undefined) candidate[k] = storedValue(k);
    try {
      resolveSettings(schema, candidate, envMap, this.env);
    } catch (err) {
      if (err instanceof ConfigError) throw new SettingsValidationError(err.field ?? 'settings', err.message);
      throw err;
    }
    return candidate;
  }

  private async settingsShape(record: PluginRecord): Promise<{ schema: z.ZodObject | undefined; envMap: Record<string, string | undefined> }> {
    if (!record.manifest || !record.file) return { schema: undefined, envMap: {} };
    if ('entry' in record.manifest && record.manifest.entry) {
      const def = await this.definitionFor(record.file, record.manifest);
      return { schema: def.settings, envMap: (def.env ?? {}) as Record<string, string> };
    }
    return { schema: settingsSchemaFromManifest(record.manifest.settings), envMap: envMapFromManifest(record.manifest.settings) };
  }

  // ---- reloads ------------------------------------------------------------------------------

  private async process(key: string): Promise<void> {
    if (this.stopped) return;
    if (key === 'scan') return this.scan();
    if (key.startsWith('plugin:')) {
      const record = this.records.get(key.slice('plugin:'.length));
      if (record) await this.reconcile(record);
    }
  }

  private async scan(): Promise<void> {
    this.options.configStore.load();
    const files = findManifests(this.options.searchPaths);
    const seen = new Map<string, ManifestFile>();
    const parsed: Array<{ file: ManifestFile; manifest?: Manifest; diagnostics: ManifestDiagnostic[]; id: string }> = [];
    for (const file of files) {
      const result = parseManifestText(file.text, { hostVersion: this.options.hostVersion, contracts: CONTRACT_VERSIONS });
      // A manifest broken past reading its id keeps the id its file had, so a bad save
      // does not remove a serving plugin.
      const id = result.manifest?.id ?? rawId(file.text) ?? this.idByPath.get(file.path) ?? `invalid:${path.basename(file.path)}`;
      if (seen.has(id)) {
        parsed.push({
          file,
          id: `duplicate:${file.path}`,
          diagnostics: [{ severity: 'error', code: 'duplicate-id', path: 'id', message: `id "${id}" is already provided by ${seen.get(id)!.path}` }],
        });
        continue;
      }
      seen.set(id, file);
      parsed.push({ file, id, diagnostics: result.diagnostics, ...(result.manifest ? { manifest: result.manifest } : {}) });
    }
    const present = new Set(parsed.map((p) => p.id));
    this.idByPath = new Map(parsed.map((p) => [p.file.path, p.id]));
    for (const p of parsed) {
      let record = this.records.get(p.id);
      if (!record) {
        record = { id: p.id, diagnostics: [], state: 'discovered', draining: new Set(), counter: 0, settingSources: {} };
        this.records.set(p.id, record);
      }
      record.file = p.file;
      record.diagnostics = p.diagnostics;
      if (p.manifest) record.manifest = p.manifest;
      else if (!record.active) record.manifest = undefined;
    }
    await Promise.all(parsed.map((p) => this.reconcile(this.records.get(p.id)!, !p.manifest)));
    for (const record of [...this.records.values()]) {
      if (!present.has(record.id)) await this.remove(record);
    }
  }

  private fingerprintOf(record: PluginRecord, envMap: Record<string, string | undefined>): string {
    const cfg = this.options.configStore.get(record.id);
    const env = Object.values(envMap).map((v) => (v ? `${v}=${this.env[v] ?? ''}` : ''));
    return createHash('sha256')
      .update(record.file?.hash ?? '')
      .update(JSON.stringify(cfg))
      .update(env.join('\n'))
      .digest('hex');
  }

  /** Brings one plugin to what its manifest and config say. Never throws. */
  private async reconcile(record: PluginRecord, invalid = false): Promise<void> {
    try {
      if (invalid || !record.manifest || !record.file) {
        const message = `manifest rejected: ${record.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code).join(', ')}`;
        if (record.active) {
          record.lastError = `reload failed, previous generation keeps serving (${message})`;
        } else {
          this.setState(record, 'rejected');
          record.lastError = message;
        }
        return;
      }
      const config = this.options.configStore.get(record.id);
      if (!config.enabled) {
        if (record.active) {
          const old = record.active;
          record.active = undefined;
          await this.retire(record, old, 'disabled');
        }
        record.fingerprint = undefined;
        this.setState(record, 'stopped');
        return;
      }
      const definition = await this.definitionFor(record.file, record.manifest);
      const envMap = record.manifest && 'entry' in record.manifest && record.manifest.entry ? ((definition.env ?? {}) as Record<string, string>) : envMapFromManifest(record.manifest.settings);
      const fingerprint = this.fingerprintOf(record, envMap);
      if (record.active && record.fingerprint === fingerprint) return;
      if (record.retry?.timer) clearTimeout(record.retry.timer);
      if (!record.active) this.setState(record, 'validated');
      if (!record.active) this.setState(record, 'starting');
      const number = ++record.counter;
      const gen = await this.buildGeneration(record, definition, config.settings, number);
      const old = record.active;
      record.active = gen;
      record.fingerprint = fingerprint;
      record.lastError = undefined;
      record.retry = undefined;
      this.setState(record, 'active');
      this.events.emit('generation', { pluginId: record.id, generation: number });
      void this.checkHealth(record.id);
      if (old) void this.retire(record, old, `replaced by generation ${number}`);
    } catch (err) {
      const message = describeError(err);
      record.lastError = message;
      this.options.logger.warn({ plugin: record.id, err: message }, 'plugin generation failed to start');
      if (record.active) {
        // A failed reload leaves the previous generation serving.
        record.lastError = `reload failed, generation ${record.active.number} keeps serving: ${message}`;
        return;
      }
      const next = nextStateFor(err);
      this.setState(record, next);
      if (next === 'retrying') this.scheduleRetry(record);
    }
  }

  private scheduleRetry(record: PluginRecord): void {
    const attempt = (record.retry?.attempt ?? 0) + 1;
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** (attempt - 1));
    const timer = setTimeout(() => {
      void this.queue.request(`plugin:${record.id}`);
    }, delay);
    timer.unref?.();
    record.retry = { attempt, timer };
  }

  private async definitionFor(file: ManifestFile, manifest: Manifest): Promise<PluginDefinition> {
    if ('entry' in manifest && manifest.entry) {
      return loadEntry(resolveEntry(file.path, manifest.entry, this.options.roots));
    }
    const kind = 'http' in manifest && manifest.http ? 'http' : 'alert' in manifest && manifest.alert ? 'alert' : undefined;
    const factory = kind ? this.options.declarative?.[kind] : undefined;
    if (!kind || !factory) throw new Error(`no runtime for this manifest's declarative block${kind ? ` "${kind}"` : ''}`);
    return factory(manifest);
  }

  private async buildGeneration(record: PluginRecord, definition: PluginDefinition, stored: Record<string, unknown>, number: number): Promise<Generation> {
    const manifest = record.manifest!;
    const isEntry = 'entry' in manifest && !!manifest.entry;
    const schema = isEntry ? definition.settings : definition.settings ?? settingsSchemaFromManifest(manifest.settings);
    const envMap = (isEntry ? definition.env ?? {} : definition.env ?? envMapFromManifest(manifest.settings)) as Record<string, string>;
    const resolved = resolveSettings(schema, stored, envMap, this.env);
    if (number > 0) record.settingSources = resolved.sources;
    const owned = createPluginContext({
      pluginId: record.id,
      generation: number,
      settings: resolved.values,
      secrets: secretValues(resolved),
      egress: resolveEgress(manifest.egress ?? [], resolved.values),
      logger: this.options.logger,
      metrics: this.metricsFactory,
      emit: (topic, payload) => this.events.emit('plugin-event', { pluginId: record.id, generation: number, topic, payload }),
      ...(this.options.onEgressDenied ? { onEgressDenied: (url: URL) => this.options.onEgressDenied!(record.id, url) } : {}),
      dataDir: this.options.dataDir,
      container: this.container,
    });
    try {
      const instance = await withTimeout(Promise.resolve(definition.start(owned.ctx as never)), this.timeouts.startMs, `start of ${record.id}`);
      return new Generation(record.id, number, instance, owned);
    } catch (err) {
      await owned.dispose().catch(() => {});
      throw err;
    }
  }

  /** Drains a replaced generation (leases to zero or the deadline), then stops it. */
  private async retire(record: PluginRecord, gen: Generation, reason: string): Promise<void> {
    gen.state = 'draining';
    record.draining.add(gen);
    if (!record.active) this.setState(record, 'draining');
    const clean = await gen.drained(this.timeouts.drainMs);
    if (!clean) this.options.logger.warn({ plugin: record.id, generation: gen.number }, 'drain deadline passed; stopping with leases held');
    await this.stopGeneration(gen, reason);
    record.draining.delete(gen);
    this.events.emit('generation-stopped', { pluginId: record.id, generation: gen.number });
    if (!record.active && record.draining.size === 0 && record.state === 'draining') this.setState(record, 'stopped');
  }

  private async stopGeneration(gen: Generation, reason: string): Promise<void> {
    try {
      if (gen.instance.stop) await withTimeout(Promise.resolve(gen.instance.stop(reason)), this.timeouts.stopMs, `stop of ${gen.pluginId}`);
    } catch (err) {
      this.options.logger.warn({ plugin: gen.pluginId, generation: gen.number, err: describeError(err) }, 'plugin stop failed; forcing');
    }
    gen.state = 'stopped';
    await gen.owned.dispose().catch((err) => this.options.logger.warn({ plugin: gen.pluginId, err: describeError(err) }, 'dispose failed'));
  }

  private async remove(record: PluginRecord): Promise<void> {
    if (record.retry?.timer) clearTimeout(record.retry.timer);
    const gen = record.active;
    record.active = undefined;
    if (gen) {
      this.setState(record, 'draining');
      await this.retire(record, gen, 'manifest removed');
    }
    this.records.delete(record.id);
    this.events.emit('removed', { pluginId: record.id });
  }

  private setState(record: PluginRecord, state: PluginState): void {
    if (record.state === state) return;
    record.state = state;
    this.events.emit('state', { pluginId: record.id, state });
  }
}

function rawId(text: string): string | undefined {
  try {
    const value = JSON.parse(text) as { id?: unknown };
    return typeof value?.id === 'string' && /^[a-z0-9][a-z0-9-]{0,63}$/.test(value.id) ? value.id : undefined;
  } catch {
    return undefined;
  }
}

/** Typed errors choose the next state: NotReady retries, Config/Auth wait for settings. */
export function nextStateFor(err: unknown): PluginState {
  if (err instanceof NotReadyError || err instanceof TimeoutError) return 'retrying';
  if (err instanceof ConfigError || err instanceof AuthError) return 'needs-config';
  const code = (err as { code?: string })?.code;
  if (code === 'not_ready') return 'retrying';
  if (code === 'config' || code === 'auth') return 'needs-config';
  return 'failed';
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
