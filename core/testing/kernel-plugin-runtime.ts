import 'reflect-metadata';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container as rootContainer } from 'tsyringe';
import type { PluginRuntime } from '../sdk/testing/index.js';
import { PluginMetricsFactory } from '../kernel/plugin-metrics.js';
import { startGeneration } from '../kernel/plugin-runner.js';
import { OutboundGuard } from '../kernel/egress.js';
import { DEFAULT_ISOLATION_LIMITS } from '../kernel/isolation/isolation-mode.js';
import type { GenerationIsolation } from '../kernel/plugin-runner.js';

/** A plugin of this package run isolated, as PLUGIN_ISOLATION runs a built-in: not confined, no resolve hooks. */
function builtinIsolation(isolation: { mode: 'process' | 'worker'; entryFile: string }): GenerationIsolation {
  const code = { entryFile: isolation.entryFile, root: path.dirname(isolation.entryFile), hash: '', builtin: true, diagnostics: [] };
  // A crash fails the call in flight with PluginCrashedError, which is what the test sees.
  return { mode: isolation.mode, code, limits: DEFAULT_ISOLATION_LIMITS, onCrash: () => {} };
}

/** The test kit's runtime: each plugin starts through the kernel's own plugin runner. */
export const kernelPluginRuntime: PluginRuntime = {
  async start(definition, options) {
    const outbound = new OutboundGuard(() => options.outboundAllowHosts);
    const run = await startGeneration({
      pluginId: options.pluginId,
      generation: 1,
      definition,
      stored: options.settings,
      env: options.env,
      egress: options.egress,
      ...(options.contracts ? { contracts: options.contracts } : {}),
      outbound,
      dataDir: options.dataDir,
      logger: pino({ level: 'debug' }, { write: options.log }),
      metrics: new PluginMetricsFactory(new Registry()),
      container: rootContainer.createChildContainer(),
      emit: options.emit,
      ...(options.timeouts ? { timeouts: options.timeouts } : {}),
      ...(options.isolation ? { isolation: builtinIsolation(options.isolation) } : {}),
    });
    return { instance: run.instance, ctx: run.ctx, stop: (reason) => run.close(reason).finally(() => outbound.close()) };
  },
};
