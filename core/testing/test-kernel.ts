import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { Kernel, type KernelOptions } from '../kernel/kernel.js';
import { PluginConfigStore } from '../config/plugin-config-store.js';
import { kitPackageRoot as packageRoot, kitVersion } from './kit-package.js';

export interface TestKernelOptions {
  /** Directories holding manifests (`*.json` or `<plugin>/manifest.json`). */
  searchPaths: string[];
  /** Per-plugin `{enabled, settings}` to start with. */
  config?: Record<string, { enabled?: boolean; settings?: Record<string, unknown> }>;
  env?: NodeJS.ProcessEnv;
  /** Watch for manifest changes (default false: call kernel.rescan()). */
  watch?: boolean;
  /** Isolation limits of isolated plugins (the kernel's defaults otherwise). */
  isolation?: KernelOptions['isolation'];
  /** Start, stop and drain deadlines (the kernel's defaults otherwise). */
  timeouts?: KernelOptions['timeouts'];
  /** Restart backoff after a crash or a not-ready start. */
  backoff?: KernelOptions['backoff'];
}

export interface TestKernel {
  kernel: Kernel;
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts the real kernel on the given manifests, with state in a temp directory. */
export async function startTestKernel(options: TestKernelOptions): Promise<TestKernel> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-kernel-'));
  const store = new PluginConfigStore(path.join(dataDir, 'plugins.config.json'));
  for (const [id, entry] of Object.entries(options.config ?? {})) await store.put(id, { enabled: entry.enabled ?? true, settings: entry.settings ?? {} });
  const kernel = new Kernel({
    hostVersion: kitVersion(),
    searchPaths: options.searchPaths,
    roots: { packageRoot, buildRoot: path.join(packageRoot, 'dist') },
    configStore: store,
    env: options.env ?? {},
    dataDir,
    logger: pino({ level: 'silent' }),
    metrics: new Registry(),
    watch: options.watch ?? false,
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
  });
  await kernel.start();
  return {
    kernel,
    dataDir,
    async stop() {
      await kernel.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
