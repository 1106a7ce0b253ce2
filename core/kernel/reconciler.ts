import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { AuthError, ConfigError, NotReadyError } from '../sdk/index.js';
import type { ValidateManifestOptions } from '../manifest/index.js';
import type { PluginConfigStore } from '../config/plugin-config-store.js';
import { EntryRefusedError } from './entry-loader.js';
import { TimeoutError } from './generation.js';
import type { Generation } from './generation.js';
import { describeError, type GenerationFactory } from './generation-factory.js';
import { admitManifests, type WriteGate } from './manifest-admission.js';
import { findManifests, type ManifestFile } from './manifest-source.js';
import { ManifestValidations, scanManifests, type ScannedManifest } from './manifest-scan.js';
import type { DefinitionResolver, LocatedPlugin } from './plugin-definition.js';
import type { PluginInstances } from './plugin-instances.js';
import type { PluginRecord, PluginRecords, PluginState } from './plugin-record.js';
import { retryDelay, type RetryBackoff } from './retry-backoff.js';

/** Cancels a scheduled retry. */
export type Cancel = () => void;

/** The inputs of a plugin's settings: its config store entry, or an instance's declaration (with the settings' source). */
type PluginConfigInputs = { enabled: boolean; settings: Record<string, unknown>; source?: 'env' | 'config' };

export interface ReconcilerOptions {
  records: PluginRecords;
  resolver: DefinitionResolver;
  factory: GenerationFactory;
  configStore: PluginConfigStore;
  /** The instances of manifests the host declared (kernel-managed plugins with host-given settings). */
  instances: PluginInstances;
  searchPaths: readonly string[];
  /** What manifests are validated against (host version, contracts, declarative blocks). */
  facts: () => ValidateManifestOptions;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  backoff: RetryBackoff;
  /** Queues a reconcile of one plugin (the kernel's reload queue). */
  requestReload: (pluginId: string) => void;
  /** A plugin's code was located (watch its folder) or its record went away (root undefined). */
  onCodeRoot?: (pluginId: string, root: string | undefined) => void;
  /** A new generation is active: check its health. */
  onActive?: (pluginId: string) => void;
  /** Files still being written (the watcher): a scan keeps what it last read of them. */
  writes?: WriteGate;
  /** Runs `fn` after `ms` (default: an unref'd timer); the retry of a not-ready start. */
  schedule?: (fn: () => void, ms: number) => Cancel;
}

/**
 * Brings each plugin to what its manifest, code, config and environment say: scans the search
 * path, starts new generations, keeps the previous one serving when a reload fails, retries
 * not-ready starts with backoff, drains and stops what is replaced, disabled or removed.
 */
export class Reconciler {
  private idByPath = new Map<string, string>();
  /** The manifest files the last scan went by, by path. */
  private filesByPath = new Map<string, ManifestFile>();
  private readonly cancels = new Map<string, Cancel>();
  /** Declared instance ids another plugin holds (warned about once). */
  private readonly takenIds = new Set<string>();
  private readonly validations = new ManifestValidations();

  constructor(private readonly options: ReconcilerOptions) {}

  /**
   * Rescans the search path and reconciles every plugin. `retryFailed` (an explicit rescan by an
   * operator or a test) also retries starts that failed on unchanged inputs; watched changes do
   * not, so an unrelated edit does not restart (and re-log) every failing plugin.
   */
  async scan(options: { retryFailed?: boolean } = {}): Promise<void> {
    const { records } = this.options;
    if (options.retryFailed) for (const record of records.all()) record.failedFingerprint = undefined;
    const { writes, configStore, searchPaths } = this.options;
    // A config store being written keeps its last entries until it settles (the watcher rescans).
    if (!writes?.settling(configStore.file)) configStore.load();
    const found = findManifests(searchPaths);
    const files = writes ? admitManifests(found, this.filesByPath, writes, searchPaths) : found;
    this.filesByPath = new Map(files.map((f) => [f.path, f]));
    const scanned = scanManifests(files, this.options.facts(), this.idByPath, this.validations).map((p) => this.unlessInstanceId(p));
    this.idByPath = new Map(scanned.map((p) => [p.file.path, p.id]));
    for (const p of scanned) {
      const record = records.ensure(p.id);
      record.file = p.file;
      record.diagnostics = p.diagnostics;
      if (p.manifest) record.manifest = p.manifest;
      else if (!record.active) record.manifest = undefined;
    }
    await Promise.all(scanned.map((p) => this.reconcile(records.get(p.id)!, !p.manifest)));
    const present = new Set(scanned.map((p) => p.id));
    for (const record of records.all()) if (!present.has(record.id) && !record.instanceOf) await this.remove(record);
    // After the manifests: an instance follows the manifest it runs (an edit reloads it too).
    await this.reconcileInstances();
  }

  /**
   * Brings the instances of `manifestId` (default: of every manifest) to the host's declared set:
   * new ones start, changed ones reload on a new generation, ones left out drain and go.
   */
  async reconcileInstances(manifestId?: string): Promise<void> {
    const { records, instances } = this.options;
    const of = manifestId ? [manifestId] : [...new Set([...instances.manifests(), ...records.all().flatMap((r) => (r.instanceOf ? [r.instanceOf] : []))])];
    for (const base of of) {
      const declared = instances.of(base);
      const work: Promise<void>[] = [];
      for (const instance of declared) {
        const existing = records.get(instance.id);
        if (existing && existing.instanceOf !== base) {
          // Said once per id, not on every scan.
          if (!this.takenIds.has(instance.id)) this.options.logger.warn({ plugin: instance.id, instanceOf: base }, 'an instance id is taken by another plugin; the instance is not started');
          this.takenIds.add(instance.id);
          continue;
        }
        this.takenIds.delete(instance.id);
        const record = records.ensure(instance.id);
        record.instanceOf = base;
        work.push(this.reconcile(record));
      }
      await Promise.all(work);
      const kept = new Set(declared.map((i) => i.id));
      for (const record of records.all()) if (record.instanceOf === base && !kept.has(record.id)) await this.remove(record);
    }
  }

  /** A manifest whose id is a declared instance's is refused like a duplicate: the instance keeps its id. */
  private unlessInstanceId(p: ScannedManifest): ScannedManifest {
    const instance = this.options.instances.get(p.id);
    if (!instance || this.options.records.get(p.id)?.instanceOf === undefined) return p;
    return { file: p.file, id: `duplicate:${p.file.path}`, diagnostics: [{ severity: 'error', code: 'duplicate-id', path: 'id', message: `id "${p.id}" is already an instance of ${instance.of}` }] };
  }

  /** Reconciles one plugin by id, if it is known. */
  async reconcileId(id: string): Promise<void> {
    const record = this.options.records.get(id);
    // A manifest the last scan refused stays refused until a scan reads a valid one.
    if (record) await this.reconcile(record, record.diagnostics.some((d) => d.severity === 'error'));
  }

  /** Brings one plugin to what its manifest and config say. Never throws. */
  async reconcile(record: PluginRecord, invalid = false): Promise<void> {
    const { records } = this.options;
    let fingerprint: string | undefined;
    let codeRoot: string | undefined | null = null;
    try {
      if (record.instanceOf) invalid = !this.followBase(record);
      const config = this.configOf(record);
      if (!config) return; // an instance no longer declared: reconcileInstances removes it
      if (record.instanceOf && !record.file) return await this.orphan(record);
      if (invalid || !record.manifest || !record.file) {
        const message = `manifest rejected: ${record.diagnostics.filter((d) => d.severity === 'error').map((d) => d.code).join(', ')}`;
        // Logged when the rejection changes, not on every scan.
        if (record.lastError !== message && !record.lastError?.endsWith(`(${message})`)) {
          this.options.logger.warn({ plugin: record.id, file: record.file, diagnostics: record.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`) }, 'manifest rejected');
        }
        if (record.active) {
          record.lastError = `reload failed, previous generation keeps serving (${message})`;
        } else {
          records.setState(record, 'rejected');
          record.lastError = message;
        }
        return;
      }
      if (!config.enabled) {
        this.cancelRetry(record);
        if (record.active) {
          const old = record.active;
          record.active = undefined;
          await this.retire(record, old, 'disabled');
        }
        record.fingerprint = undefined;
        record.failedFingerprint = undefined;
        record.lastError = undefined;
        records.setState(record, 'stopped');
        return;
      }
      let located: LocatedPlugin;
      try {
        located = this.options.resolver.locate(record.file, record.manifest);
      } catch (err) {
        record.loadDiagnostics = err instanceof EntryRefusedError ? [err.diagnostic] : [];
        throw err;
      }
      record.loadDiagnostics = located.code?.diagnostics ?? [];
      codeRoot = located.code && !located.code.builtin ? located.code.root : undefined;
      const known = record.resolved?.key === located.key ? record.resolved : undefined;
      fingerprint = this.fingerprintOf(config, located.key, known?.envMap ?? {});
      if (known && this.unchanged(record, fingerprint)) return;
      let resolved = await this.options.resolver.resolve(record.manifest, located, record.resolved);
      // An instance's settings come from the host only: the manifest's variables are its own plugin's.
      if (record.instanceOf) resolved = { ...resolved, envMap: {} };
      record.resolved = resolved;
      fingerprint = this.fingerprintOf(config, located.key, resolved.envMap);
      if (this.unchanged(record, fingerprint)) return;
      this.cancelRetry(record);
      if (!record.active) records.setState(record, 'validated');
      if (!record.active) records.setState(record, 'starting');
      const number = ++record.counter;
      const { generation, sources } = await this.options.factory.build(record.id, record.manifest, resolved, config.settings, number, this.options.instances.runInputs(record));
      const old = record.active;
      record.active = generation;
      record.isolation = { restarts: 0, ...record.isolation, mode: generation.run.isolate?.mode ?? 'in-process' };
      record.settingSources = sources;
      record.fingerprint = fingerprint;
      record.failedFingerprint = undefined;
      record.lastError = undefined;
      record.retry = undefined;
      records.setState(record, 'active');
      this.options.logger.info({ plugin: record.id, version: record.manifest.version, generation: number }, 'plugin active');
      records.events.emit('generation', { pluginId: record.id, generation: number });
      this.options.onActive?.(record.id);
      if (old) void this.retire(record, old, `replaced by generation ${number}`);
    } catch (err) {
      this.failed(record, err, fingerprint);
    } finally {
      // Watched once the attempt is over (a watcher's first scan is not on the way to active);
      // a folder whose code failed is watched too, so the fix is seen.
      if (codeRoot !== null) this.options.onCodeRoot?.(record.id, codeRoot);
    }
  }

  /**
   * True when there is nothing to do: the active generation runs on these inputs (a repaired
   * manifest then clears the reload error), or the last start on these very inputs failed.
   */
  private unchanged(record: PluginRecord, fingerprint: string): boolean {
    if (record.active && record.fingerprint === fingerprint) {
      record.lastError = undefined;
      record.failedFingerprint = undefined;
      return true;
    }
    return record.failedFingerprint === fingerprint;
  }

  private failed(record: PluginRecord, err: unknown, fingerprint: string | undefined): void {
    const message = describeError(err);
    const next: PluginState = err instanceof EntryRefusedError ? 'rejected' : nextStateFor(err);
    const lastError = record.active ? `reload failed, generation ${record.active.number} keeps serving: ${message}` : message;
    // Logged when the error changes, not on every scan: a plugin waiting for settings is news once.
    if (record.lastError !== lastError) {
      // Waiting for settings is summed up in the start-up banner and in /plugins: debug here.
      if (next === 'needs-config' && !record.active) this.options.logger.debug({ plugin: record.id, reason: message }, 'plugin waits for configuration (needs-config)');
      else this.options.logger.warn({ plugin: record.id, state: record.active ? 'active' : next, err: message }, record.active ? 'plugin reload failed; the previous generation keeps serving' : `plugin ${next}`);
    }
    record.lastError = lastError;
    if (next !== 'retrying' || record.active) record.failedFingerprint = fingerprint;
    if (record.active) return; // A failed reload leaves the previous generation serving.
    this.options.records.setState(record, next);
    if (next === 'retrying') this.scheduleRetry(record);
  }

  /**
   * An isolated generation stopped on its own or over a limit: the plugin is failed with the
   * reason (in /plugins, the logs and the alert condition) and restarted with backoff; a fix
   * dropped in meanwhile (new code or settings) starts at once.
   */
  crashed(id: string, number: number, reason: string): void {
    const record = this.options.records.get(id);
    const gen = record?.active;
    if (!record || !gen || gen.number !== number) return; // a draining generation: its retire disposes it
    record.active = undefined;
    record.lastError = `plugin crashed (generation ${number}): ${reason}`;
    record.failedFingerprint = record.fingerprint;
    record.fingerprint = undefined;
    this.options.logger.error({ plugin: id, generation: number, reason }, 'plugin crashed; restarting with backoff');
    this.options.records.setState(record, 'failed');
    void this.options.factory.stop(gen, 'crashed');
    // A generation that served a good while starts the backoff over.
    const served = Date.now() - gen.startedAt.getTime();
    const attempt = served > this.options.backoff.maxMs * 2 ? 1 : (record.crashes ?? 0) + 1;
    record.crashes = attempt;
    record.isolation = { mode: gen.run.isolate?.mode ?? 'in-process', restarts: (record.isolation?.restarts ?? 0) + 1, lastFailure: reason };
    this.cancelRetry(record);
    const schedule = this.options.schedule ?? unrefTimer;
    this.cancels.set(
      id,
      schedule(() => {
        record.failedFingerprint = undefined;
        this.options.requestReload(id);
      }, retryDelay(attempt, this.options.backoff)),
    );
  }

  private scheduleRetry(record: PluginRecord): void {
    const attempt = (record.retry?.attempt ?? 0) + 1;
    const delay = retryDelay(attempt, this.options.backoff);
    const schedule = this.options.schedule ?? unrefTimer;
    this.cancels.set(record.id, schedule(() => this.options.requestReload(record.id), delay));
    record.retry = { attempt };
  }

  private cancelRetry(record: PluginRecord): void {
    this.cancels.get(record.id)?.();
    this.cancels.delete(record.id);
  }

  private fingerprintOf(config: PluginConfigInputs, key: string, envMap: Record<string, string | undefined>): string {
    const env = Object.values(envMap).map((v) => (v ? `${v}=${this.options.env[v] ?? ''}` : ''));
    return createHash('sha256').update(key).update(JSON.stringify(config)).update(env.join('\n')).digest('hex');
  }

  /** What a plugin runs with: the config store's entry, or an instance's host-given settings (undefined: no longer declared). */
  private configOf(record: PluginRecord): PluginConfigInputs | undefined {
    if (!record.instanceOf) return this.options.configStore.get(record.id);
    const declared = this.options.instances.get(record.id);
    return declared && { enabled: true, settings: declared.settings, source: declared.source };
  }

  /**
   * An instance takes the manifest, file and diagnostics of the plugin it is an instance of; true
   * when that manifest is valid (an invalid edit leaves the instance's generation serving, as any plugin's).
   */
  private followBase(record: PluginRecord): boolean {
    const base = this.options.records.get(record.instanceOf!);
    const valid = !!base?.manifest && !!base.file && !base.diagnostics.some((d) => d.severity === 'error');
    record.file = base?.file;
    record.diagnostics = base?.diagnostics ?? [];
    if (valid) record.manifest = base.manifest;
    else if (!record.active || !base) record.manifest = undefined;
    return valid;
  }

  /** The manifest an instance runs is gone: like its plugin, the instance drains and stops; still declared, it waits (rejected) for the manifest's return. */
  private async orphan(record: PluginRecord): Promise<void> {
    this.cancelRetry(record);
    const old = record.active;
    record.active = undefined;
    if (old) await this.retire(record, old, 'manifest removed');
    record.fingerprint = undefined;
    record.failedFingerprint = undefined;
    record.lastError = `an instance of ${record.instanceOf}, whose manifest is not found`;
    this.options.records.setState(record, 'rejected');
  }

  /** Drains a replaced, disabled or removed generation, then stops it. */
  async retire(record: PluginRecord, gen: Generation, reason: string): Promise<void> {
    record.draining.add(gen);
    if (!record.active) this.options.records.setState(record, 'draining');
    await this.options.factory.retire(gen, reason);
    record.draining.delete(gen);
    if (!record.active && record.draining.size === 0 && record.state === 'draining') this.options.records.setState(record, 'stopped');
  }

  async remove(record: PluginRecord): Promise<void> {
    this.cancelRetry(record);
    const gen = record.active;
    record.active = undefined;
    if (gen) {
      this.options.records.setState(record, 'draining');
      await this.retire(record, gen, record.instanceOf ? 'instance no longer declared' : 'manifest removed');
    }
    this.options.records.delete(record.id);
    this.options.logger.info({ plugin: record.id }, record.instanceOf ? 'instance no longer declared; plugin stopped' : 'manifest removed; plugin stopped');
    this.options.onCodeRoot?.(record.id, undefined);
    this.options.records.events.emit('removed', { pluginId: record.id });
  }

  /** Host stopping: cancels retries, drains and stops every active generation. */
  async stopAll(): Promise<void> {
    const stops: Promise<void>[] = [];
    for (const record of this.options.records.all()) {
      this.cancelRetry(record);
      if (record.active) {
        const gen = record.active;
        record.active = undefined;
        stops.push(this.retire(record, gen, 'host stopping'));
      }
    }
    await Promise.all(stops);
  }
}

function unrefTimer(fn: () => void, ms: number): Cancel {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
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
