import { Gauge, type Registry } from 'prom-client';
import type { PluginRecords } from './plugin-record.js';

/** `switchboard_plugin_active_generation{plugin}`: the active generation (0 when none), read at scrape time. */
export function registerGenerationGauge(metrics: Registry, records: PluginRecords): Gauge<string> {
  const gauge: Gauge<string> = new Gauge({
    name: 'switchboard_plugin_active_generation',
    help: 'Active generation number per plugin (0 when none)',
    labelNames: ['plugin'],
    registers: [metrics],
    collect: () => {
      gauge.reset();
      for (const r of records.all()) gauge.set({ plugin: r.id }, r.active?.number ?? 0);
    },
  });
  return gauge;
}
