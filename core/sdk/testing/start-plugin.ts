import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PluginContext, PluginDefinition, PluginInstance } from '../plugin.js';
import type { PluginRuntime } from './plugin-runtime.js';

export interface StartPluginOptions {
  pluginId?: string;
  /** Settings as the config store would hold them; validated by the plugin's schema. */
  settings?: Record<string, unknown>;
  /** Environment for the plugin's env map (default: empty, so the machine's env cannot leak in). */
  env?: NodeJS.ProcessEnv;
  /** Hosts the plugin may call, as a manifest's egress (default: loopback only). */
  egress?: string[];
  /**
   * The contracts the plugin declares, as its manifest's `provides` (`['alert-sink@^1']`): a
   * provider written for an older major is served through that major's adapter, as the host
   * serves it (default: none, the providers are used as they are).
   */
  contracts?: string[];
  /**
   * OUTBOUND_ALLOW_HOSTS of the run: hosts that settings (written at run time, as here) may
   * reach on a private address (default: loopback, for the test's own fakes; [] tests the refusal).
   */
  outboundAllowHosts?: string[];
  dataDir?: string;
  /** Log lines are collected here as JSON strings (secrets already masked). */
  logLines?: string[];
  /** Start and stop deadlines (default: the host's). */
  timeouts?: { startMs?: number; stopMs?: number };
  /**
   * Run the plugin's code isolated, as the host runs it under PLUGIN_ISOLATION: `entryFile` is
   * the compiled module whose default export is the definition (default: in this process).
   */
  isolation?: { mode: 'process' | 'worker'; entryFile: string };
}

export interface StartedPlugin {
  instance: PluginInstance;
  ctx: PluginContext;
  /** Every `ctx.events.emit` of the plugin, in order. */
  events: Array<{ topic: string; payload: unknown }>;
  /** Waits until an event on `topic` matching `where` arrives. */
  nextEvent(topic: string, where?: (payload: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  stop(reason?: string): Promise<void>;
}

export type StartPlugin = (definition: PluginDefinition, options?: StartPluginOptions) => Promise<StartedPlugin>;

/**
 * startPlugin on `runtime`: one generation of a plugin with the host's real context wiring
 * (egress-checked HTTP, masked logger, metrics, container, disposers), its events recorded.
 */
export function pluginStarter(runtime: PluginRuntime): StartPlugin {
  return async (definition, options = {}) => {
    const pluginId = options.pluginId ?? 'plugin-under-test';
    const lines = options.logLines;
    const events: StartedPlugin['events'] = [];
    const waiters: Array<{ topic: string; where: (p: unknown) => boolean; resolve: (p: unknown) => void }> = [];
    const generation = await runtime.start(definition, {
      pluginId,
      settings: options.settings ?? {},
      env: options.env ?? {},
      egress: options.egress ?? ['127.0.0.1', 'localhost', '[::1]'],
      ...(options.contracts ? { contracts: options.contracts } : {}),
      outboundAllowHosts: options.outboundAllowHosts ?? ['127.0.0.1', 'localhost', '::1'],
      dataDir: options.dataDir ?? mkdtempSync(path.join(tmpdir(), `${pluginId}-`)),
      log: (line) => void lines?.push(line),
      emit: (topic, payload) => {
        events.push({ topic, payload });
        for (const w of [...waiters]) {
          if (w.topic === topic && w.where(payload)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(payload);
          }
        }
      },
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.isolation ? { isolation: options.isolation } : {}),
    });
    let stopped = false;
    return {
      instance: generation.instance,
      ctx: generation.ctx,
      events,
      nextEvent(topic, where = () => true, timeoutMs = 10_000) {
        const seen = events.find((e) => e.topic === topic && where(e.payload));
        if (seen) return Promise.resolve(seen.payload);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no ${topic} event within ${timeoutMs} ms`)), timeoutMs);
          waiters.push({ topic, where, resolve: (p) => (clearTimeout(timer), resolve(p)) });
        });
      },
      async stop(reason = 'test finished') {
        if (stopped) return;
        stopped = true;
        await generation.stop(reason);
      },
    };
  };
}
