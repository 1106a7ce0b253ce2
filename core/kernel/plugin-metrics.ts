import { Counter, Histogram, type Registry } from 'prom-client';
import type { PluginMetrics } from '../sdk/index.js';

/** Where a plugin generation gets its metrics from (the factory below, or a sink that keeps nothing). */
export interface PluginMetricsSource {
  forPlugin(pluginId: string): PluginMetrics;
}

/**
 * Plugin metrics live in the host's registry as `switchboard_plugin_<name>` with a `plugin`
 * label. Generations of one plugin share the same series, so a reload does not reset counts.
 */
export class PluginMetricsFactory implements PluginMetricsSource {
  private readonly counters = new Map<string, Counter<string>>();
  private readonly histograms = new Map<string, Histogram<string>>();
  constructor(private readonly registry: Registry) {}

  forPlugin(pluginId: string): PluginMetrics {
    const name = (n: string) => `switchboard_plugin_${n.replace(/[^a-zA-Z0-9_]/g, '_')}`;
    return {
      counter: (n, help, labelNames = []) => {
        const key = name(n);
        let c = this.counters.get(key);
        if (!c) {
          c = new Counter({ name: key, help, labelNames: ['plugin', ...labelNames], registers: [this.registry] });
          this.counters.set(key, c);
        }
        const counter = c;
        return { inc: (labels = {}, value = 1) => counter.inc({ ...labels, plugin: pluginId }, value) };
      },
      histogram: (n, help, labelNames = [], buckets) => {
        const key = name(n);
        let h = this.histograms.get(key);
        if (!h) {
          h = new Histogram({ name: key, help, labelNames: ['plugin', ...labelNames], registers: [this.registry], ...(buckets ? { buckets } : {}) });
          this.histograms.set(key, h);
        }
        const histogram = h;
        return { observe: (labels, value) => histogram.observe({ ...labels, plugin: pluginId }, value) };
      },
    };
  }
}
