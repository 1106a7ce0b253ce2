import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { container } from 'tsyringe';
import { loadEntry, locateEntry } from '../../../../../core/kernel/entry-loader.js';
import type { PluginMetricsSource } from '../../../../../core/kernel/plugin-metrics.js';
import { DEFAULT_RUN_TIMEOUTS, startGeneration } from '../../../../../core/kernel/plugin-runner.js';
import { describedDefinition } from '../../../../../core/kernel/plugin-definition.js';
import { probeEntry } from '../../../../../core/kernel/isolation/isolate-probe.js';
import { isolatedDataDir } from '../../../../../core/kernel/plugin-paths.js';
import type { OutboundGuard } from '../../../../../core/kernel/egress.js';
import type { RetrievalProvider } from '../../../../../core/sdk/index.js';
import { PluginConfigStore } from '../../../../../core/config/plugin-config-store.js';
import type { IndexJob } from './protocol.js';

/**
 * The child's metrics go nowhere (no registry is scraped in it), so it does not load prom-client:
 * that, with the tracing API it pulls in, was a fifth of the child's start-up.
 */
const DISCARDED_METRICS: PluginMetricsSource = {
  forPlugin: () => ({ counter: () => ({ inc: () => {} }), histogram: () => ({ observe: () => {} }) }),
};

/**
 * Starts the retrieval plugin inside the indexer child from its manifest, through the kernel's
 * plugin runner (settings, `settings:` egress entries, start deadline as in the kernel), so
 * indexing writes through the retrieval contract like any caller.
 */
export async function loadBackend(backend: IndexJob['backend'], env: NodeJS.ProcessEnv = process.env, outbound?: OutboundGuard): Promise<{ provider: RetrievalProvider; stop(): Promise<void> }> {
  const manifest = JSON.parse(readFileSync(backend.manifestPath, 'utf8')) as { entry?: string; egress?: string[] };
  if (!manifest.entry) throw new Error(`retrieval backend "${backend.pluginId}" has no code entry`);
  const code = locateEntry(backend.manifestPath, manifest.entry, { packageRoot: backend.packageRoot, buildRoot: path.join(backend.packageRoot, 'dist') });
  // Third-party code the kernel isolates is isolated here too: described by a probe, never imported in the child.
  const isolation = backend.isolation && !code.builtin ? backend.isolation : undefined;
  const definition = isolation
    ? describedDefinition(backend.pluginId, await probeEntry({ pluginId: backend.pluginId, mode: isolation.mode, code, dataDir: isolatedDataDir(backend.dataDir, backend.pluginId), memoryMb: isolation.limits.memoryMb, deadlineMs: backend.timeouts?.startMs ?? DEFAULT_RUN_TIMEOUTS.startMs })).definition
    : await loadEntry(code);
  const run = await startGeneration({
    pluginId: backend.pluginId,
    generation: 0,
    definition,
    ...(isolation ? { isolation: { mode: isolation.mode, code, limits: isolation.limits, onCrash: () => {}, parseSettings: true } } : {}),
    // Settings resolved here, in the child, from the same sources as the kernel's.
    stored: new PluginConfigStore(backend.configStorePath).get(backend.pluginId).settings,
    env,
    egress: manifest.egress ?? [],
    dataDir: backend.dataDir,
    ...(backend.pathsAllow ? { pathsAllow: backend.pathsAllow } : {}),
    ...(outbound ? { outbound } : {}),
    logger: pino({ level: 'warn' }, pino.destination(2)),
    metrics: DISCARDED_METRICS,
    container: container.createChildContainer(),
    emit: () => {},
    ...(backend.timeouts ? { timeouts: backend.timeouts } : {}),
  });
  const provider = run.instance.providers.retrieval;
  if (!provider) {
    await run.close('no retrieval provider').catch(() => {});
    throw new Error(`plugin "${backend.pluginId}" provides no retrieval provider`);
  }
  return { provider, stop: () => run.close('indexing finished') };
}
