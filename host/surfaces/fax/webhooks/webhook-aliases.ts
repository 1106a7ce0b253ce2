import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { WebhookAlias } from '../../../../core/manifest/index.js';

/** A webhook alias path a fax plugin's manifest declares (`webhookAliases`). */
export interface DeclaredWebhookAlias extends WebhookAlias {
  pluginId: string;
}

/** The aliases the kernel's manifests declare now, fax plugins only, first claim of a path wins. */
export function declaredWebhookAliases(kernel: Kernel): DeclaredWebhookAlias[] {
  const seen = new Set<string>();
  const out: DeclaredWebhookAlias[] = [];
  for (const manifest of kernel.manifests()) {
    if (!manifest.provides.some((p) => p.kind === 'fax')) continue;
    for (const alias of manifest.webhookAliases ?? []) {
      const key = alias.path.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ ...alias, pluginId: manifest.id });
    }
  }
  return out;
}

/**
 * The status-callback URL the host hands a fax plugin for one job: the plugin's declared
 * callback alias when it has one (the path its provider account may already be set up with),
 * else `/webhooks/<pluginId>/callback`; the job rides in `?job_id=`.
 */
export function callbackUrlFor(kernel: Kernel, pluginId: string, publicBaseUrl: string, jobId: string): string {
  const alias = kernel.manifestOf(pluginId)?.webhookAliases?.find((a) => a.kind === 'callback');
  const path = alias?.path ?? `/webhooks/${encodeURIComponent(pluginId)}/callback`;
  return `${publicBaseUrl.replace(/\/+$/, '')}${path}?job_id=${encodeURIComponent(jobId)}`;
}
