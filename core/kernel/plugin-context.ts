import 'reflect-metadata';
import type { DependencyContainer } from 'tsyringe';
import type { Logger } from 'pino';
import path from 'node:path';
import { Tokens, type PluginContext } from '../sdk/plugin.js';
import { directoryStorage } from './directory-storage.js';
import { pluginStore, type WithStorage } from './plugin-store.js';
import { createEgressClient, type OutboundConnectOptions, type OutboundGuard } from './egress.js';
import { createPluginLogger } from './plugin-logger.js';
import type { PluginMetricsSource } from './plugin-metrics.js';

export interface ContextOptions {
  pluginId: string;
  generation: number;
  settings: Record<string, unknown>;
  secrets: string[];
  egress: readonly string[];
  /** The entries of `egress` from settings written at run time: their addresses are checked. */
  runtimeEgress?: readonly string[];
  outbound?: OutboundGuard;
  /** TLS and timeouts of checked connections (an instance's extra CAs). */
  connect?: () => OutboundConnectOptions;
  logger: Logger;
  metrics: PluginMetricsSource;
  emit: (topic: string, payload: unknown) => void;
  onEgressDenied?: (url: URL) => void;
  dataDir: string;
  /** Where `ctx.storage` keeps its objects (the host's storage backend); default DATA_DIR/plugin-store. */
  storage?: WithStorage;
  container: DependencyContainer;
}

export interface OwnedContext {
  ctx: PluginContext;
  /** Aborts the generation's signal, runs its disposers (last first) and its container's. */
  dispose(): Promise<void>;
}

/** Builds everything one generation of a plugin gets; the host owns and disposes it. */
export function createPluginContext(options: ContextOptions): OwnedContext {
  const container = options.container.createChildContainer();
  const lifetime = generationLifetime(container, options.pluginId);
  const logger = createPluginLogger(options.logger, { plugin: options.pluginId, generation: options.generation }, () => options.secrets);
  const http = createEgressClient({
    egress: options.egress,
    ...(options.runtimeEgress ? { runtime: options.runtimeEgress } : {}),
    ...(options.outbound ? { guard: options.outbound } : {}),
    ...(options.connect ? { connect: options.connect } : {}),
    signal: lifetime.signal,
    ...(options.onEgressDenied ? { onDenied: options.onEgressDenied } : {}),
  });
  const ctx: PluginContext = {
    pluginId: options.pluginId,
    generation: options.generation,
    settings: Object.freeze({ ...options.settings }),
    logger,
    http,
    metrics: options.metrics.forPlugin(options.pluginId),
    events: { emit: (topic, payload) => options.emit(topic, payload) },
    dataDir: options.dataDir,
    storage: pluginStore(options.pluginId, options.storage ?? directoryStorage(path.join(options.dataDir, 'plugin-store'))),
    container,
    onDispose: lifetime.onDispose,
    signal: lifetime.signal,
  };
  registerContextTokens(ctx);
  return { ctx, dispose: lifetime.dispose };
}

/**
 * The lifetime of one generation's context (in the host and in an isolate alike): its abort
 * signal, its disposers, and a dispose that aborts, runs the disposers last first, disposes the
 * container and then throws what the disposers threw.
 */
export function generationLifetime(container: DependencyContainer, pluginId: string): Pick<PluginContext, 'signal' | 'onDispose'> & { dispose(): Promise<void> } {
  const abort = new AbortController();
  const disposers: Array<() => void | Promise<void>> = [];
  return {
    signal: abort.signal,
    onDispose: (fn) => {
      disposers.push(fn);
    },
    async dispose() {
      abort.abort(new Error('generation stopped'));
      const errors: unknown[] = [];
      for (const fn of disposers.reverse()) {
        try {
          await fn();
        } catch (err) {
          errors.push(err);
        }
      }
      await container.dispose();
      if (errors.length) throw new AggregateError(errors, `${errors.length} disposer(s) of ${pluginId} failed`);
    },
  };
}

/** Registers the context's parts under the SDK's tokens in its own container (in the host and in an isolate alike). */
export function registerContextTokens(ctx: PluginContext): void {
  ctx.container.register(Tokens.Context, { useValue: ctx });
  ctx.container.register(Tokens.Settings, { useValue: ctx.settings });
  ctx.container.register(Tokens.Logger, { useValue: ctx.logger });
  ctx.container.register(Tokens.Http, { useValue: ctx.http });
}
