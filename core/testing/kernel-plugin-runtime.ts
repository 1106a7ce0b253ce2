import 'reflect-metadata';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container as rootContainer } from 'tsyringe';
import type { PluginRuntime } from '../sdk/testing/index.js';
import { PluginMetricsFactory } from '../kernel/plugin-metrics.js';
import { startGeneration } from '../kernel/plugin-runner.js';
import { OutboundGuard } from '../kernel/egress.js';

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
    });
    return { instance: run.instance, ctx: run.ctx, stop: (reason) => run.close(reason).finally(() => outbound.close()) };
  },
};
