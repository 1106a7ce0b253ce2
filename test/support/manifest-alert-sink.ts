import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTRACT_VERSIONS } from '../../core/sdk/index.js';
import type { AlertNotice, AlertSinkProvider } from '../../core/sdk/contracts/alert-sink.js';
import { startPlugin, type StartedPlugin } from '../../core/testing/index.js';
import { parseManifestText, type Manifest } from '../../core/manifest/index.js';
import { createAlertSinkPlugin } from '../../core/declarative/alert-sink.js';
import { resolveEgress } from '../../core/kernel/egress.js';

/** manifests/<id>.json of the package, validated as the host validates it; throws on any diagnostic. */
export function builtinAlertManifest(id: string): Manifest {
  // dist/test/support/ -> the project root, where manifests/ lives (not compiled).
  const text = readFileSync(fileURLToPath(new URL(`../../../manifests/${id}.json`, import.meta.url)), 'utf8');
  const { manifest, diagnostics } = parseManifestText(text, { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS, declarativeBlocks: ['http', 'alert'] });
  if (!manifest || diagnostics.length > 0) throw new Error(`manifests/${id}.json: ${JSON.stringify(diagnostics)}`);
  return manifest;
}

/**
 * A built-in alert-sink manifest started through the real declarative runtime, with the egress
 * its manifest declares resolved against the settings, as the kernel resolves it.
 */
export async function startManifestAlertSink(
  id: string,
  settings: Record<string, unknown>,
  options: { allowHttpLoopback?: boolean } = {},
): Promise<{ plugin: StartedPlugin; sink: AlertSinkProvider }> {
  const manifest = builtinAlertManifest(id);
  // The tests' receivers are plain http on loopback, as ALERT_ALLOW_HTTP_LOOPBACK allows.
  const allowHttpLoopback = options.allowHttpLoopback ?? true;
  const plugin = await startPlugin(createAlertSinkPlugin(manifest, { allowHttpLoopback: () => allowHttpLoopback }), { pluginId: id, settings, egress: resolveEgress(manifest.egress ?? [], settings) });
  return { plugin, sink: plugin.instance.providers['alert-sink'] as AlertSinkProvider };
}

/** A stored notice as the host writes it, with `fields` over a firing info notice. */
export function alertNotice(fields: Partial<AlertNotice> & Pick<AlertNotice, 'id' | 'type' | 'title'>): AlertNotice {
  const at = fields.starts_at ?? '2025-01-01T00:00:00.000Z';
  return { event_id: `${fields.id}/firing:1`, category: 'test', severity: 'info', status: 'firing', labels: {}, starts_at: at, ends_at: null, sent_at: at, context: {}, ...fields };
}
