import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import type { Manifest } from '../manifest/index.js';
import { Generation, withTimeout } from './generation.js';
import { resolveEgress } from './egress.js';
import { createPluginContext } from './plugin-context.js';
import type { PluginMetricsFactory } from './plugin-metrics.js';
import type { ResolvedPlugin } from './plugin-definition.js';
import type { KernelEvents } from './kernel-events.js';
import { resolveSettings, secretValues, type SettingSource } from './settings-resolver.js';

export interface GenerationFactoryOptions {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  logger: Logger;
  metrics: PluginMetricsFactory;
  container: DependencyContainer;
  events: KernelEvents;
  timeouts: { startMs: number; stopMs: number; drainMs: number };
  onEgressDenied?: (pluginId: string, url: URL) => void;
}

/** Builds generations (context, start under a deadline), stops them, and drains replaced ones. */
export class GenerationFactory {
  constructor(private readonly options: GenerationFactoryOptions) {}

  /** Starts generation `number` of a plugin with `stored` settings; throws what start threw. */
  async build(pluginId: string, manifest: Manifest, resolved: ResolvedPlugin, stored: Record<string, unknown>, number: number): Promise<{ generation: Generation; sources: Record<string, SettingSource> }> {
    const settings = resolveSettings(resolved.schema, stored, resolved.envMap, this.options.env);
    const owned = createPluginContext({
      pluginId,
      generation: number,
      settings: settings.values,
      secrets: secretValues(settings),
      egress: resolveEgress(manifest.egress ?? [], settings.values),
      logger: this.options.logger,
      metrics: this.options.metrics,
      emit: (topic, payload) => this.options.events.emit('plugin-event', { pluginId, generation: number, topic, payload }),
      ...(this.options.onEgressDenied ? { onEgressDenied: (url: URL) => this.options.onEgressDenied!(pluginId, url) } : {}),
      dataDir: this.options.dataDir,
      container: this.options.container,
    });
    try {
      const instance = await withTimeout(Promise.resolve(resolved.definition.start(owned.ctx as never)), this.options.timeouts.startMs, `start of ${pluginId}`);
      return { generation: new Generation(pluginId, number, instance, owned), sources: settings.sources };
    } catch (err) {
      await owned.dispose().catch(() => {});
      throw err;
    }
  }

  /** Stops a generation now (stop deadline, then forced) and disposes its context. */
  async stop(gen: Generation, reason: string): Promise<void> {
    try {
      if (gen.instance.stop) await withTimeout(Promise.resolve(gen.instance.stop(reason)), this.options.timeouts.stopMs, `stop of ${gen.pluginId}`);
    } catch (err) {
      this.options.logger.warn({ plugin: gen.pluginId, generation: gen.number, err: describeError(err) }, 'plugin stop failed; forcing');
    }
    gen.state = 'stopped';
    await gen.owned.dispose().catch((err) => this.options.logger.warn({ plugin: gen.pluginId, err: describeError(err) }, 'dispose failed'));
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
