import { existsSync } from 'node:fs';
import path from 'node:path';
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

/** The file list a plugin package carries; unpacked beside the code of an installed package. */
export const PACKAGE_FILE_LIST = 'files.json';

/**
 * How a plugin runs: the operator's choice for it (PLUGIN_ISOLATION), else its manifest's
 * `isolation`, else a child process for a third party's installed package (its folder holds the
 * package's file list) and in-process for the rest (built-ins, declarative blocks, dropped-in
 * folders, whose authors test them in-process with the SDK's kit).
 */
export function isolationOf(manifest: Manifest, code: PluginCode | undefined, operator: IsolationMode | undefined): IsolationMode {
  if (!code) return 'in-process'; // a declarative block runs on the host's own runtime
  const installedPackage = !code.builtin && existsSync(path.join(code.root, PACKAGE_FILE_LIST));
  return operator ?? manifest.isolation ?? (installedPackage ? 'process' : 'in-process');
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
