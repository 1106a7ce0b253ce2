import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import type { Manifest } from '../manifest/index.js';
import { Generation } from './generation.js';
import type { PluginMetricsFactory } from './plugin-metrics.js';
import type { ResolvedPlugin } from './plugin-definition.js';
import type { KernelEvents } from './kernel-events.js';
import { startGeneration } from './plugin-runner.js';
import type { SettingSource } from './settings-resolver.js';
import type { OutboundGuard } from './egress.js';
import type { WithStorage } from './plugin-store.js';
import type { InstanceRunInputs } from './plugin-instances.js';
import { DEFAULT_ISOLATION_LIMITS, isolationOf, type IsolationLimits, type IsolationMode } from './isolation/isolation-mode.js';

export interface GenerationFactoryOptions {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  /** Where plugins' `ctx.storage` keeps its objects (the host's storage backend). */
  storage?: WithStorage;
  /** PLUGIN_PATHS_ALLOW, read at each start. */
  pathsAllow?: () => readonly string[];
  runtimeVariable?: (name: string) => boolean;
  outbound?: OutboundGuard;
  logger: Logger;
  metrics: PluginMetricsFactory;
  container: DependencyContainer;
  events: KernelEvents;
  timeouts: { startMs: number; stopMs: number; drainMs: number };
  onEgressDenied?: (pluginId: string, url: URL) => void;
  /** The operator's isolation mode for a plugin (PLUGIN_ISOLATION), read at each start. */
  isolation?: (pluginId: string) => IsolationMode | undefined;
  /** The limits of isolated plugins, read at each start. */
  limits?: () => IsolationLimits;
  /** An isolated generation stopped on its own or over a limit. */
  onCrash?: (pluginId: string, generation: number, reason: string) => void;
}

/** Builds generations (through the plugin runner), stops them, and drains replaced ones. */
export class GenerationFactory {
  constructor(private readonly options: GenerationFactoryOptions) {}

  /**
   * Starts generation `number` of a plugin with `stored` settings (an instance's: given by the
   * host, from `instance`); throws what start threw.
   */
  async build(pluginId: string, manifest: Manifest, resolved: ResolvedPlugin, stored: Record<string, unknown>, number: number, instance?: InstanceRunInputs): Promise<{ generation: Generation; sources: Record<string, SettingSource> }> {
    let mode = isolationOf(manifest, resolved.code, this.options.isolation?.(pluginId));
    // Described, never imported: it cannot run here even if the mode changed since it was resolved.
    if (resolved.described && mode === 'in-process') mode = 'process';
    const run = await startGeneration({
      pluginId,
      generation: number,
      definition: resolved.definition,
      schema: resolved.schema,
      envMap: resolved.envMap,
      stored,
      ...(instance ? { storedSource: instance.storedSource, connect: instance.connect } : {}),
      env: this.options.env,
      egress: manifest.egress ?? [],
      // A declarative runtime is the host's own and serves the current contracts already.
      ...(resolved.block ? {} : { contracts: manifest.provides.map((p) => p.contract) }),
      dataDir: this.options.dataDir,
      ...(this.options.storage ? { storage: this.options.storage } : {}),
      ...(this.options.pathsAllow ? { pathsAllow: this.options.pathsAllow() } : {}),
      ...(this.options.runtimeVariable ? { runtimeVariable: this.options.runtimeVariable } : {}),
      ...(this.options.outbound ? { outbound: this.options.outbound } : {}),
      logger: this.options.logger,
      metrics: this.options.metrics,
      container: this.options.container,
      emit: (topic, payload) => this.options.events.emit('plugin-event', { pluginId, generation: number, topic, payload }),
      ...(this.options.onEgressDenied ? { onEgressDenied: (url: URL) => this.options.onEgressDenied!(pluginId, url) } : {}),
      timeouts: this.options.timeouts,
      ...(mode !== 'in-process' && resolved.code
        ? { isolation: { mode, code: resolved.code, limits: this.options.limits?.() ?? DEFAULT_ISOLATION_LIMITS, onCrash: (reason: string) => this.options.onCrash?.(pluginId, number, reason), ...(resolved.described ? { parseSettings: true } : {}) } }
        : {}),
    });
    return { generation: new Generation(pluginId, number, run), sources: run.settings.sources };
  }

  /** Stops a generation now (stop deadline, then forced) and disposes its context. */
  async stop(gen: Generation, reason: string): Promise<void> {
    try {
      await gen.run.stop(reason);
    } catch (err) {
      this.options.logger.warn({ plugin: gen.pluginId, generation: gen.number, err: describeError(err) }, 'plugin stop failed; forcing');
    }
    gen.state = 'stopped';
    await gen.run.dispose().catch((err) => this.options.logger.warn({ plugin: gen.pluginId, err: describeError(err) }, 'dispose failed'));
  }

  /**
   * Drains a replaced generation (its leases reach zero, or the drain deadline passes), then
   * stops it. Resolves true when it drained cleanly.
   */
  async retire(gen: Generation, reason: string): Promise<boolean> {
    gen.state = 'draining';
    const clean = await gen.drained(this.options.timeouts.drainMs);
    if (!clean) this.options.logger.warn({ plugin: gen.pluginId, generation: gen.number, leases: gen.activeLeases }, 'drain deadline passed; stopping with leases held');
    await this.stop(gen, reason);
    this.options.events.emit('generation-stopped', { pluginId: gen.pluginId, generation: gen.number });
    return clean;
  }
}

export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
