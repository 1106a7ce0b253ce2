import type { Manifest } from '../../manifest/index.js';
import type { PluginCode } from '../entry-loader.js';

export const ISOLATION_MODES = ['process', 'worker', 'in-process'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** The limits an isolated plugin runs under; over one it is stopped and its generation fails. */
export interface IsolationLimits {
  /** Heap cap of the isolate (V8 old generation), in MB. */
  memoryMb: number;
  /** Longest a single provider call may take before the isolate is terminated. */
  callMs: number;
  /** Calls in flight at once; one more is refused (not accepted) without reaching the plugin. */
  maxConcurrentCalls: number;
  /** Longest the isolate's event loop may leave a ping unanswered (a busy loop) before it is terminated. */
  unresponsiveMs: number;
}

export const DEFAULT_ISOLATION_LIMITS: IsolationLimits = { memoryMb: 256, callMs: 120_000, maxConcurrentCalls: 64, unresponsiveMs: 5_000 };

/**
 * How a plugin runs: the operator's choice for it (PLUGIN_ISOLATION), else its manifest's
 * `isolation`, else in-process for the host's own code (built-ins, declarative blocks) and a
 * child process for third-party code.
 */
export function isolationOf(manifest: Manifest, code: PluginCode | undefined, operator: IsolationMode | undefined): IsolationMode {
  if (!code) return 'in-process'; // a declarative block runs on the host's own runtime
  return operator ?? manifest.isolation ?? (code.builtin ? 'in-process' : 'process');
}

/** PLUGIN_ISOLATION: `id=mode` pairs separated by commas; malformed pairs are ignored (the setting's own check reports them). */
export function parseIsolationSetting(setting: string): Map<string, IsolationMode> {
  const byId = new Map<string, IsolationMode>();
  for (const pair of setting.split(',')) {
    const [id, mode] = pair.split('=').map((s) => s.trim());
    if (id && (ISOLATION_MODES as readonly string[]).includes(mode ?? '')) byId.set(id, mode as IsolationMode);
  }
  return byId;
}
