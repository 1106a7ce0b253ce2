import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { container } from 'tsyringe';
import { loadEntry, locateEntry } from '../../../../../core/kernel/entry-loader.js';
import { createPluginContext } from '../../../../../core/kernel/plugin-context.js';
import { PluginMetricsFactory } from '../../../../../core/kernel/plugin-metrics.js';
import type { RetrievalProvider } from '../../../../../core/sdk/index.js';
import { PluginConfigStore } from '../../../../../core/config/plugin-config-store.js';
import { resolveSettings, secretValues } from '../../../../../core/kernel/settings-resolver.js';
import type { IndexJob } from './protocol.js';

/**
 * Starts the retrieval plugin inside the indexer child from its manifest, with its settings
 * resolved as the kernel resolves them, so indexing writes through the retrieval contract like
 * any caller.
 */
export async function loadBackend(backend: IndexJob['backend']): Promise<{ provider: RetrievalProvider; stop(): Promise<void> }> {
  const manifest = JSON.parse(readFileSync(backend.manifestPath, 'utf8')) as { entry?: string; egress?: string[] };
  if (!manifest.entry) throw new Error(`retrieval backend "${backend.pluginId}" has no code entry`);
  const code = locateEntry(backend.manifestPath, manifest.entry, { packageRoot: backend.packageRoot, buildRoot: path.join(backend.packageRoot, 'dist') });
  const definition = await loadEntry(code);
  // Settings resolved here, in the child, from the same sources as the kernel's.
  const stored = new PluginConfigStore(backend.configStorePath).get(backend.pluginId).settings;
  const resolved = resolveSettings(definition.settings, stored, (definition.env ?? {}) as Record<string, string>, process.env);
  const owned = createPluginContext({
    pluginId: backend.pluginId,
    generation: 0,
    settings: resolved.values,
    secrets: secretValues(resolved),
    egress: manifest.egress ?? [],
    logger: pino({ level: 'warn' }, pino.destination(2)),
    metrics: new PluginMetricsFactory(new Registry()),
    emit: () => {},
    dataDir: backend.dataDir,
    container: container.createChildContainer(),
  });
  const instance = await definition.start(owned.ctx as never);
  const provider = instance.providers.retrieval;
  if (!provider) throw new Error(`plugin "${backend.pluginId}" provides no retrieval provider`);
  return {
    provider,
    async stop() {
      await instance.stop?.('indexing finished');
      await owned.dispose();
    },
  };
}
