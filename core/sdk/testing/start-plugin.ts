import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { container as rootContainer } from 'tsyringe';
import { Registry } from 'prom-client';
import type { PluginContext, PluginDefinition, PluginInstance } from '../plugin.js';
import { createPluginContext } from '../../kernel/plugin-context.js';
import { PluginMetricsFactory } from '../../kernel/plugin-metrics.js';
import { resolveSettings, secretValues } from '../../kernel/settings-resolver.js';

export interface StartPluginOptions {
  pluginId?: string;
  /** Settings as the config store would hold them; validated by the plugin's schema. */
  settings?: Record<string, unknown>;
  /** Environment for the plugin's env map (default: empty, so the machine's env cannot leak in). */
  env?: NodeJS.ProcessEnv;
  /** Hosts the plugin may call (default: loopback only). */
  egress?: string[];
  dataDir?: string;
  /** Log lines are collected here as JSON strings (secrets already masked). */
  logLines?: string[];
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

/**
 * Starts one generation of a plugin with the host's real context wiring (egress-checked HTTP,
 * masked logger, metrics, container, disposers), for plugin tests and conformance suites.
 */
export async function startPlugin(definition: PluginDefinition, options: StartPluginOptions = {}): Promise<StartedPlugin> {
  const pluginId = options.pluginId ?? 'plugin-under-test';
  const resolved = resolveSettings(definition.settings, options.settings ?? {}, (definition.env ?? {}) as Record<string, string>, options.env ?? {});
  const lines = options.logLines;
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines?.push(line) });
  const events: StartedPlugin['events'] = [];
  const waiters: Array<{ topic: string; where: (p: unknown) => boolean; resolve: (p: unknown) => void }> = [];
  const owned = createPluginContext({
    pluginId,
    generation: 1,
    settings: resolved.values,
    secrets: secretValues(resolved),
    egress: options.egress ?? ['127.0.0.1', 'localhost', '[::1]'],
    logger,
    metrics: new PluginMetricsFactory(new Registry()),
    emit: (topic, payload) => {
      events.push({ topic, payload });
      for (const w of [...waiters]) {
        if (w.topic === topic && w.where(payload)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(payload);
        }
      }
    },
    dataDir: options.dataDir ?? mkdtempSync(path.join(tmpdir(), `${pluginId}-`)),
    container: rootContainer.createChildContainer(),
  });
  let instance: PluginInstance;
  try {
    instance = await definition.start(owned.ctx as PluginContext<never>);
  } catch (err) {
    await owned.dispose();
    throw err;
  }
  let stopped = false;
  return {
    instance,
    ctx: owned.ctx,
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
      try {
        await instance.stop?.(reason);
      } finally {
        await owned.dispose();
      }
    },
  };
}
