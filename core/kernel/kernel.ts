import 'reflect-metadata';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { container as rootContainer } from 'tsyringe';
import { CONTRACT_VERSIONS, faxDirectionsOf, type FaxDirection, type HealthResult, type ProviderKind } from '../sdk/index.js';
import type { PluginConfigStore } from '../config/plugin-config-store.js';
import type { Manifest } from '../manifest/index.js';
import type { OutboundGuard } from './egress.js';
import { DeclarativeRuntimes, type DeclarativeFactory } from './declarative-runtimes.js';
import type { EntryRoots } from './entry-loader.js';
import type { Lease } from './generation.js';
import { GenerationFactory } from './generation-factory.js';
import { DEFAULT_RUN_TIMEOUTS } from './plugin-runner.js';
import { secretValues as secretValuesOfRun } from './settings-resolver.js';
import { secretFields } from '../sdk/settings.js';
import { KernelEvents } from './kernel-events.js';
import { registerGenerationGauge } from './kernel-metrics.js';
import { LeaseRegistry } from './lease-registry.js';
import { ManifestWatcher } from './manifest-watcher.js';
import { PluginCodeWatcher } from './plugin-code-watcher.js';
import { DefinitionResolver } from './plugin-definition.js';
import { PluginInstances, type InstanceSetOptions, type PluginInstanceSpec } from './plugin-instances.js';
import { PluginMetricsFactory } from './plugin-metrics.js';
import { PluginRecords, type PluginState } from './plugin-record.js';
import { PluginSettingsEditor, type PluginConfigView } from './plugin-settings-editor.js';
import { PluginViews, type PluginView } from './plugin-views.js';
import { Reconciler } from './reconciler.js';
import { DEFAULT_ISOLATION_LIMITS, type IsolationLimits, type IsolationMode } from './isolation/isolation-mode.js';
import { probeEntry } from './isolation/isolate-probe.js';
import { isolatedDataDir } from './plugin-paths.js';
import { ReloadQueue } from './reload-queue.js';

export type { PluginState } from './plugin-record.js';
export type { PluginView } from './plugin-views.js';
export type { PluginConfigView } from './plugin-settings-editor.js';
export type { KernelEventMap } from './kernel-events.js';
export type { DeclarativeFactory } from './declarative-runtimes.js';
export type { PluginInstanceSpec, InstanceSetOptions } from './plugin-instances.js';
export { DeclarativeRuntimes } from './declarative-runtimes.js';
export { PluginNotAvailableError } from './lease-registry.js';
export { SettingsValidationError } from './plugin-settings-editor.js';
export { nextStateFor } from './reconciler.js';
export { PluginCrashedError } from './isolation/plugin-crashed.js';
export { ISOLATION_MODES, parseIsolationSetting, type IsolationMode, type IsolationLimits } from './isolation/isolation-mode.js';

export interface KernelOptions {
  hostVersion: string;
  /** manifests/ first, then PLUGINS_PATH directories. */
  searchPaths: string[];
  roots: EntryRoots;
  configStore: PluginConfigStore;
  env?: NodeJS.ProcessEnv;
  dataDir: string;
  /** The plugin id of the storage backend plugins' `ctx.storage` writes to (STORAGE_BACKEND), read per call; unset, DATA_DIR/plugin-store. */
  pluginStorage?: () => string;
  logger: Logger;
  metrics: Registry;
  timeouts?: { startMs?: number; stopMs?: number; drainMs?: number; healthMs?: number };
  /** Start retries after a not-ready start: the first delay, doubled per attempt up to the ceiling. */
  backoff?: { initialMs?: number; maxMs?: number };
  /** The runtimes of declarative blocks; a block without one is refused as unsupported. */
  declarative?: DeclarativeRuntimes | Partial<Record<'http' | 'alert', DeclarativeFactory>>;
  /** Watch the search path, the config store and each plugin's folder (hot reload). */
  watch?: boolean;
  onEgressDenied?: (pluginId: string, url: URL) => void;
  /** The guard of URLs set at run time (OUTBOUND_ALLOW_HOSTS); without it no private host is reached. */
  outbound?: OutboundGuard;
  /** PLUGIN_PATHS_ALLOW (environment only): directories besides DATA_DIR that plugin path settings may name. */
  pathsAllow?: () => readonly string[];
  /** True for an env variable the host fills from its run-time configuration (a bridged key). */
  runtimeVariable?: (name: string) => boolean;
  /** Isolation of plugin code: the operator's mode per plugin id (over the manifest's) and the isolates' limits. */
  isolation?: { modes?: () => ReadonlyMap<string, IsolationMode>; limits?: () => Partial<IsolationLimits> };
}

/**
 * The kernel: finds manifests, validates them, starts each plugin as a generation, swaps
 * generations on change through one serial reload queue and hands out leases to callers.
 * It wires its pieces (see docs/architecture.md) and keeps the public surface in one place.
 */
export class Kernel {
  readonly events = new KernelEvents();
  readonly declarative: DeclarativeRuntimes;
  private readonly records = new PluginRecords(this.events);
  private readonly instances = new PluginInstances();
  private readonly queue = new ReloadQueue((key) => this.process(key));
  private readonly leases = new LeaseRegistry(this.records);
  private readonly views: PluginViews;
  private readonly editor: PluginSettingsEditor;
  private readonly reconciler: Reconciler;
  private readonly healthMs: number;
  private watcher?: ManifestWatcher;
  private codeWatcher?: PluginCodeWatcher;
  private started = false;
  private stopped = false;

  constructor(private readonly options: KernelOptions) {
    const env = options.env ?? process.env;
    const timeouts = { ...DEFAULT_RUN_TIMEOUTS, drainMs: 30_000, healthMs: 5_000, ...options.timeouts };
    this.healthMs = timeouts.healthMs;
    this.declarative = options.declarative instanceof DeclarativeRuntimes ? options.declarative : new DeclarativeRuntimes(options.declarative ?? {});
    const limits = () => ({ ...DEFAULT_ISOLATION_LIMITS, ...options.isolation?.limits?.() });
    const resolver = new DefinitionResolver(options.roots, this.declarative, {
      operatorMode: (id) => options.isolation?.modes?.().get(id),
      describe: (pluginId, mode, code) =>
        probeEntry({ pluginId, mode, code, dataDir: isolatedDataDir(options.dataDir, pluginId), memoryMb: limits().memoryMb, deadlineMs: timeouts.startMs }),
    });
    const factory = new GenerationFactory({
      env,
      dataDir: options.dataDir,
      ...(options.pluginStorage ? { storage: (fn) => this.withProvider('storage', options.pluginStorage!(), fn) } : {}),
      logger: options.logger,
      metrics: new PluginMetricsFactory(options.metrics),
      container: rootContainer.createChildContainer(),
      events: this.events,
      timeouts,
      ...(options.onEgressDenied ? { onEgressDenied: options.onEgressDenied } : {}),
      ...(options.outbound ? { outbound: options.outbound } : {}),
      ...(options.pathsAllow ? { pathsAllow: options.pathsAllow } : {}),
      ...(options.runtimeVariable ? { runtimeVariable: options.runtimeVariable } : {}),
      isolation: (id) => options.isolation?.modes?.().get(id),
      limits,
      onCrash: (id, generation, reason) => this.reconciler.crashed(id, generation, reason),
    });
    if (options.watch !== false) this.codeWatcher = new PluginCodeWatcher((id) => void this.queue.request(`plugin:${id}`));
    this.reconciler = new Reconciler({
      records: this.records,
      resolver,
      factory,
      configStore: options.configStore,
      instances: this.instances,
      searchPaths: options.searchPaths,
      facts: () => ({ hostVersion: options.hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks: this.declarative.blocks() }),
      env,
      logger: options.logger,
      backoff: { initialMs: 500, maxMs: 30_000, ...options.backoff },
      requestReload: (id) => void this.queue.request(`plugin:${id}`),
      onCodeRoot: (id, root) => this.codeWatcher?.set(id, root),
      onActive: (id) => void this.checkHealth(id),
      ...(options.watch !== false
        ? {
            writes: {
              admits: (file: string, text: string | undefined) => this.watcher?.admits(file, text) ?? true,
              settling: (file: string) => this.watcher?.settling(file) ?? false,
            },
          }
        : {}),
    });
    this.views = new PluginViews(this.records, options.configStore);
    this.editor = new PluginSettingsEditor({
      records: this.records,
      resolver,
      factory,
      configStore: options.configStore,
      instances: this.instances,
      env,
      settingsContext: () => ({
        paths: { dataDir: options.dataDir, ...(options.pathsAllow ? { allow: options.pathsAllow() } : {}) },
        ...(options.runtimeVariable ? { runtimeVariable: options.runtimeVariable } : {}),
      }),
      healthMs: this.healthMs,
      reload: (id) => this.queue.request(`plugin:${id}`),
    });
    registerGenerationGauge(options.metrics, this.records);
  }

  /** First scan (every plugin settled), then the watchers. */
  async start(): Promise<void> {
    // The SDK resolve hooks are registered by the entry loader when the first plugin from outside
    // the package is imported, not here: with hooks registered every later import of the process
    // crosses to the hooks thread, and that thread is a second V8 heap (about 8 MB resident).
    this.started = true;
    await this.queue.request('scan');
    if (this.options.watch !== false) {
      this.watcher = new ManifestWatcher(this.options.searchPaths, [this.options.configStore.file], () => {
        void this.queue.request('scan');
      });
      await Promise.all([this.watcher.ready(), this.codeWatcher?.ready()]);
    }
  }

  /**
   * Rescans the search path and the config store now, retrying plugins whose start failed;
   * resolves when applied.
   */
  rescan(): Promise<void> {
    return this.queue.request('rescan');
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.watcher?.close();
    await this.codeWatcher?.close();
    await this.queue.idle();
    await this.reconciler.stopAll();
  }

  private async process(key: string): Promise<void> {
    if (this.stopped) return;
    if (key === 'scan') return this.reconciler.scan();
    if (key === 'rescan') return this.reconciler.scan({ retryFailed: true });
    if (key.startsWith('plugin:')) return this.reconciler.reconcileId(key.slice('plugin:'.length));
    if (key.startsWith('instances:')) return this.reconciler.reconcileInstances(key.slice('instances:'.length));
  }

  // ---- instances ----

  /**
   * Declares the instances of manifest `manifestId` the host wants running: each an ordinary
   * plugin with its own id and host-given settings (never written to the config store; secret
   * where the manifest says so). New ones start, changed ones reload, ones left out drain and
   * stop, through the reload queue; resolves when applied (before start: at the first scan).
   */
  setInstances(manifestId: string, instances: readonly PluginInstanceSpec[], options: InstanceSetOptions = {}): Promise<void> {
    const changed = this.instances.set(manifestId, instances, options);
    // Listed at once (discovered), so a caller can name a new instance before its start.
    for (const { id } of instances) if (!this.records.get(id)) this.records.ensure(id).instanceOf = manifestId;
    if (!changed || !this.started || this.stopped) return Promise.resolve();
    return this.queue.request(`instances:${manifestId}`);
  }

  /** Ids of the instances declared of `manifestId`, whatever their state. */
  instancesOf(manifestId: string): string[] {
    return this.instances.of(manifestId).map((i) => i.id);
  }

  // ---- leases ----

  /** A lease on the active generation of `pluginId` for `kind`. Release it when done. */
  lease<K extends ProviderKind>(kind: K, pluginId: string): Lease<K> {
    return this.leases.lease(kind, pluginId);
  }

  /** Runs `fn` with the provider of the active generation, holding a lease throughout. */
  withProvider<K extends ProviderKind, T>(kind: K, pluginId: string, fn: (provider: Lease<K>['provider'], lease: Lease<K>) => Promise<T>): Promise<T> {
    return this.leases.withProvider(kind, pluginId, fn);
  }

  /** Whether `pluginId` can serve `kind` right now. */
  isActive(kind: ProviderKind, pluginId: string): boolean {
    return this.leases.isActive(kind, pluginId);
  }

  stateOf(pluginId: string): PluginState | 'unknown' {
    return this.leases.stateOf(pluginId);
  }

  /** Whether the serving generation of fax plugin `pluginId` takes `direction` (an inbound-only start does not send). */
  servesFax(pluginId: string, direction: FaxDirection): boolean {
    const fax = this.records.get(pluginId)?.active?.instance.providers.fax;
    return !!fax && faxDirectionsOf(fax).includes(direction);
  }

  /** Ids of active plugins that provide `kind`. */
  providersOf(kind: ProviderKind): string[] {
    return this.leases.providersOf(kind);
  }

  /** Names (never values) of the environment variables a plugin declares for its settings. */
  settingsVariablesOf(pluginId: string): string[] {
    const envMap = this.records.get(pluginId)?.resolved?.envMap ?? {};
    return [...new Set(Object.values(envMap).filter((v): v is string => typeof v === 'string' && v !== ''))];
  }

  /**
   * Every plugin secret in clear (what the config store holds for secret fields, what their
   * environment variables hold, an instance's host-given secrets), so the host can mask them
   * wherever they could appear.
   */
  secretValues(): string[] {
    const env = this.options.env ?? process.env;
    const values = new Set<string>();
    for (const record of this.records.all()) {
      const resolved = record.resolved;
      if (!resolved) continue;
      const stored = record.instanceOf ? (this.instances.get(record.id)?.settings ?? {}) : this.options.configStore.get(record.id).settings;
      for (const field of secretFields(resolved.schema)) {
        const variable = resolved.envMap[field];
        for (const value of [Object.hasOwn(stored, field) ? stored[field] : undefined, variable ? env[variable] : undefined]) {
          if (typeof value === 'string' && value.length > 0) values.add(value);
        }
      }
      for (const value of record.active ? secretValuesOfRun(record.active.run.settings) : []) values.add(value);
    }
    return [...values];
  }

  // ---- manifests ----

  /** The valid manifests the kernel knows now (every state), in scan order. */
  manifests(): Manifest[] {
    return this.records.all().flatMap((r) => (r.manifest ? [r.manifest] : []));
  }

  /** The manifest of `pluginId`, when the last scan found it valid (or it still serves). */
  manifestOf(pluginId: string): Manifest | undefined {
    return this.records.get(pluginId)?.manifest;
  }

  /**
   * The plugin a setting's value names: a plugin id, or an alias a manifest declares
   * (`aliases`); undefined when no manifest claims it.
   */
  pluginIdFor(name: string): string | undefined {
    if (this.records.get(name)?.manifest) return name;
    return this.manifests().find((m) => m.aliases?.includes(name))?.id;
  }

  // ---- views ----

  list(): PluginView[] {
    return this.views.list();
  }

  get(id: string): PluginView | undefined {
    return this.views.get(id);
  }

  /** Runs the health check of every active plugin (or of `id`) and records the results. */
  async checkHealth(id?: string): Promise<Record<string, HealthResult>> {
    const out: Record<string, HealthResult> = {};
    await Promise.all(
      this.records
        .all()
        .filter((r) => (id ? r.id === id : true) && r.active)
        .map(async (r) => {
          const result = await r.active!.health(this.healthMs);
          r.health = { ...result, checkedAt: new Date().toISOString() };
          out[r.id] = result;
        }),
    );
    return out;
  }

  // ---- configuration ----

  configView(id: string): Promise<PluginConfigView | undefined> {
    return this.editor.configView(id);
  }

  /** Validates and stores `{enabled, settings}`, then reloads the plugin on a new generation. */
  updateConfig(id: string, update: { enabled?: boolean; settings?: Record<string, unknown> }): Promise<PluginConfigView> {
    return this.editor.updateConfig(id, update);
  }

  /** Starts a throwaway generation with candidate settings, runs its health check, stops it. */
  testConfig(id: string, settings: Record<string, unknown> | undefined): Promise<HealthResult & { state: PluginState }> {
    return this.editor.testConfig(id, settings);
  }
}
