import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import type { z } from 'zod';
import type { PluginContext, PluginDefinition, PluginInstance } from '../sdk/plugin.js';
import { resolveEgress, runtimeEgress, type OutboundConnectOptions, type OutboundGuard } from './egress.js';
import { withTimeout } from './generation.js';
import { servedAtCurrentContracts } from './contract-adapters.js';
import { createPluginContext } from './plugin-context.js';
import type { WithStorage } from './plugin-store.js';
import type { PluginMetricsSource } from './plugin-metrics.js';
import { isolatedDataDir } from './plugin-paths.js';
import type { PluginCode } from './entry-loader.js';
import { startIsolatedPlugin, type IsolatedPlugin } from './isolation/isolated-plugin.js';
import type { IsolationLimits } from './isolation/isolation-mode.js';
import { isOperatorSource, resolveSettings, secretValues, type ResolvedSettings, type SettingSource } from './settings-resolver.js';

/** The kernel's deadlines for a plugin's start and stop, also used by every other runner caller. */
export const DEFAULT_RUN_TIMEOUTS = { startMs: 10_000, stopMs: 5_000 };

export interface GenerationRequest {
  pluginId: string;
  generation: number;
  definition: PluginDefinition;
  /** Settings schema and env map; the definition's own unless given (declarative plugins pass the manifest's). */
  schema?: z.ZodObject | undefined;
  envMap?: Record<string, string>;
  /** Settings as the config store holds them; the environment (through the env map) wins. */
  stored: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  /** The manifest's egress list; `settings:<field>` entries become the host of that setting's URL. */
  egress: readonly string[];
  /**
   * The contracts a code plugin declares (`kind@range`, its manifest's `provides`): a provider
   * written for an older major is served at the current one through that major's adapter.
   * Declarative runtimes are the host's own and serve the current contracts: leave it out.
   */
  contracts?: readonly string[];
  /** Where `stored` settings came from (default `store`): `env` and `config` for an instance's host-given settings. */
  storedSource?: SettingSource;
  /** TLS and timeouts of the outbound connections of URLs set at run time (an instance's extra CAs), read per request. */
  connect?: () => OutboundConnectOptions;
  dataDir: string;
  /** Where `ctx.storage` keeps its objects (the host's storage backend); default DATA_DIR/plugin-store. */
  storage?: WithStorage;
  /** PLUGIN_PATHS_ALLOW: directories besides DATA_DIR that path settings may name. */
  pathsAllow?: readonly string[];
  /** True for an env variable the host fills from its run-time configuration (not the operator's environment). */
  runtimeVariable?: (name: string) => boolean;
  /** The guard of run-time URLs (OUTBOUND_ALLOW_HOSTS); the egress client makes a strict one without it. */
  outbound?: OutboundGuard;
  logger: Logger;
  metrics: PluginMetricsSource;
  /** The generation gets a child of this container. */
  container: DependencyContainer;
  emit: (topic: string, payload: unknown) => void;
  onEgressDenied?: (url: URL) => void;
  timeouts?: Partial<typeof DEFAULT_RUN_TIMEOUTS>;
  /** Run the plugin's code in an isolate (a child process or a worker) instead of this process. */
  isolation?: GenerationIsolation;
}

export interface GenerationIsolation {
  mode: 'process' | 'worker';
  code: PluginCode;
  limits: IsolationLimits;
  /** The isolate stopped on its own or over a limit, after start: the generation has failed. */
  onCrash: (reason: string) => void;
  /** The settings were checked against a stand-in schema (the entry was not imported here): the isolate parses them. */
  parseSettings?: boolean;
}

/** A started generation: the host calls stop (under its deadline), then dispose, exactly once. */
export interface StartedGeneration {
  instance: PluginInstance;
  ctx: PluginContext;
  settings: ResolvedSettings;
  /** Runs the plugin's stop under the stop deadline; throws what it threw or a TimeoutError. */
  stop(reason: string): Promise<void>;
  /** Aborts the context's signal and runs its disposers, whether or not stop succeeded. */
  dispose(): Promise<void>;
  /** stop, then dispose even when stop failed; throws the first failure. */
  close(reason: string): Promise<void>;
  /** The isolate it runs in, when isolated. */
  isolate?: IsolatedPlugin;
}

/**
 * Starts one generation of a plugin: settings resolved and validated, egress resolved, the
 * context built, start run under the start deadline. The kernel, the SDK test kit and the
 * indexer child all start plugins here. Throws what resolution or start threw (a ConfigError,
 * a TimeoutError...), after disposing the context.
 */
export async function startGeneration(request: GenerationRequest): Promise<StartedGeneration> {
  const timeouts = {
    startMs: request.timeouts?.startMs ?? DEFAULT_RUN_TIMEOUTS.startMs,
    stopMs: request.timeouts?.stopMs ?? DEFAULT_RUN_TIMEOUTS.stopMs,
  };
  const { definition, pluginId } = request;
  const envMap = request.envMap ?? ((definition.env ?? {}) as Record<string, string>);
  const settings = resolveSettings(request.schema ?? definition.settings, request.stored, envMap, request.env, {
    paths: { dataDir: request.dataDir, ...(request.pathsAllow ? { allow: request.pathsAllow } : {}) },
    ...(request.runtimeVariable ? { runtimeVariable: request.runtimeVariable } : {}),
    ...(request.storedSource ? { storedSource: request.storedSource } : {}),
  });
  const owned = createPluginContext({
    pluginId,
    generation: request.generation,
    settings: settings.values,
    secrets: secretValues(settings),
    egress: resolveEgress(request.egress, settings.values),
    runtimeEgress: runtimeEgress(request.egress, settings.values, (field) => isOperatorSource(settings.sources[field])),
    ...(request.outbound ? { outbound: request.outbound } : {}),
    ...(request.connect ? { connect: request.connect } : {}),
    logger: request.logger,
    metrics: request.metrics,
    emit: request.emit,
    ...(request.onEgressDenied ? { onEgressDenied: request.onEgressDenied } : {}),
    dataDir: request.dataDir,
    ...(request.storage ? { storage: request.storage } : {}),
    container: request.container,
  });
  let instance: PluginInstance;
  let isolate: IsolatedPlugin | undefined;
  try {
    if (request.isolation) {
      isolate = await startIsolated(request, request.isolation, owned.ctx, settings.values, timeouts);
      instance = isolate.instance;
    } else {
      instance = servedAtCurrentContracts(await withTimeout(Promise.resolve(definition.start(owned.ctx as never)), timeouts.startMs, `start of ${pluginId}`), request.contracts ?? []);
    }
  } catch (err) {
    await owned.dispose().catch(() => {});
    throw err;
  }
  const stop = async (reason: string) => {
    if (isolate) await isolate.stop(reason);
    else if (instance.stop) await withTimeout(Promise.resolve(instance.stop(reason)), timeouts.stopMs, `stop of ${pluginId}`);
  };
  return {
    ...(isolate ? { isolate } : {}),
    instance,
    ctx: owned.ctx,
    settings,
    stop,
    dispose: () => owned.dispose(),
    async close(reason) {
      try {
        await stop(reason);
      } finally {
        await owned.dispose();
      }
    },
  };
}

/**
 * Starts the plugin's code in an isolate: it gets its settings and, for third-party code, a
 * data folder of its own (DATA_DIR/plugin-data/<id>, the only place it may write).
 */
function startIsolated(request: GenerationRequest, isolation: GenerationIsolation, ctx: PluginContext, settings: Record<string, unknown>, timeouts: typeof DEFAULT_RUN_TIMEOUTS): Promise<IsolatedPlugin> {
  return startIsolatedPlugin({
    mode: isolation.mode,
    code: isolation.code,
    limits: isolation.limits,
    pluginId: request.pluginId,
    generation: request.generation,
    settings,
    dataDir: isolation.code.builtin ? request.dataDir : isolatedDataDir(request.dataDir, request.pluginId),
    egress: resolveEgress(request.egress, settings),
    contracts: request.contracts ?? [],
    startMs: timeouts.startMs,
    stopMs: timeouts.stopMs,
    hostContext: ctx,
    onCrash: isolation.onCrash,
    ...(isolation.parseSettings ? { parseSettings: true } : {}),
  });
}
