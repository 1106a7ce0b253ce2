import type { PluginContext, PluginDefinition, PluginInstance } from '../plugin.js';

/**
 * What the test kit needs from a host: start one generation of a plugin on the host's real
 * wiring. The SDK only declares it; the kernel implements it where `switchboard/sdk/testing`
 * is built (core/testing/), so the SDK depends on no kernel internals.
 */
export interface PluginRuntime {
  start(definition: PluginDefinition, options: RuntimeStartOptions): Promise<RuntimeGeneration>;
}

export interface RuntimeStartOptions {
  pluginId: string;
  /** Settings as the config store would hold them; validated by the plugin's schema. */
  settings: Record<string, unknown>;
  /** Environment for the plugin's env map. */
  env: NodeJS.ProcessEnv;
  /** The egress list, as a manifest's (`settings:<field>` entries allowed). */
  egress: readonly string[];
  /** The contracts the plugin declares (`kind@range`): older majors are served through their adapters. */
  contracts?: readonly string[];
  /** OUTBOUND_ALLOW_HOSTS of the run. */
  outboundAllowHosts: readonly string[];
  dataDir: string;
  /** Receives each log line as JSON (secrets already masked). */
  log(line: string): void;
  emit(topic: string, payload: unknown): void;
  timeouts?: { startMs?: number; stopMs?: number };
  /** Run the code of `entryFile` in a child process or worker instead of `definition` here. */
  isolation?: { mode: 'process' | 'worker'; entryFile: string };
}

export interface RuntimeGeneration {
  instance: PluginInstance;
  ctx: PluginContext;
  /** Stops the plugin (under the stop deadline), then disposes its context even if stop failed. */
  stop(reason: string): Promise<void>;
}
