import type { Kernel } from '../../../core/kernel/kernel.js';
import type { ConfigRegistry, ConfigValues } from './registry.js';

/**
 * Every secret the gateway knows, in clear, so a trace or a log can mask it wherever it would
 * appear: the host's secret configuration keys, and each plugin's secret settings (from the
 * plugin config store and from their environment variables, HOSTED_JUDGE_API_KEY say).
 */
export function secretValuesOf(config: ConfigRegistry<ConfigValues>, kernel?: Pick<Kernel, 'secretValues'>): string[] {
  const values = config.effective().config as Record<string, unknown>;
  const host = [...config.model.secretKeys].map((k) => values[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
  return [...new Set([...host, ...(kernel?.secretValues() ?? [])])];
}
