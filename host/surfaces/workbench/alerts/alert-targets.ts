import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { OutboundConnectOptions } from '../../../../core/kernel/egress.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { parseWebhookTargets, type WebhookTarget } from './webhook-targets.js';

/** A target as operators see it: `plugin:<id>`, and whose instance it is (WEBHOOK_TARGETS URLs). */
export interface TargetView {
  id: string;
  plugin: string;
  instance_of: string | null;
  /** A WEBHOOK_TARGETS URL masked after its host, or the plugin's id. */
  receiver: string;
}

/** A URL with everything after the host hidden, for an operator to recognise a target. */
export function maskTargetUrl(url: URL): string {
  return `${url.protocol}//${url.host}/***`;
}

/**
 * The alert targets, all `plugin:<id>`: every active alert-sink plugin, and one kernel-managed
 * instance of the default sink (`sinkId`, the built-in marked `default`) per WEBHOOK_TARGETS
 * URL, with the URL as its `url` setting. A URL from the environment is the operator's; one
 * written at run time (the config file) reaches its host only through the outbound guard. The
 * instances trust the system CAs plus ALERT_WEBHOOK_CA_FILE.
 */
export class AlertTargets {
  private readonly connections = new ReceiverConnections(() => ({ caFile: this.deps.config.get('ALERT_WEBHOOK_CA_FILE'), timeoutMs: this.deps.config.get('ALERT_WEBHOOK_TIMEOUT') * 1000 }));

  constructor(private readonly deps: { config: WorkbenchConfig; kernel: Kernel; sinkId: string }) {}

  /** The WEBHOOK_TARGETS URLs the rule accepts, and the refused ones named by id. */
  webhooks(): { targets: WebhookTarget[]; problems: string[] } {
    return parseWebhookTargets(this.deps.config.get('WEBHOOK_TARGETS'), this.deps.config.get('ALERT_ALLOW_HTTP_LOOPBACK'));
  }

  /** Declares one instance per WEBHOOK_TARGETS URL now; the kernel starts, reloads and stops them. */
  sync(): Promise<void> {
    const { config, kernel, sinkId } = this.deps;
    const source = config.effective().source.WEBHOOK_TARGETS === 'env' ? 'env' : 'config';
    const instances = this.webhooks().targets.map((t) => ({ id: t.pluginId, settings: { url: t.url.href }, source }) as const);
    return kernel.setInstances(sinkId, instances, { connect: () => this.connections.options(), origin: 'WEBHOOK_TARGETS' });
  }

  /** Every target a notice goes to now: the declared instances (a starting one too), then the other active alert-sink plugins. */
  ids(): string[] {
    return this.view().targets.map((t) => t.id);
  }

  view(): { targets: TargetView[]; problems: string[] } {
    const { kernel, sinkId } = this.deps;
    const { targets, problems } = this.webhooks();
    const webhooks = targets.map((t) => ({ id: t.id, plugin: t.pluginId, instance_of: sinkId, receiver: maskTargetUrl(t.url) }));
    const listed = new Set(webhooks.map((t) => t.plugin));
    // An instance of the sink whose URL left WEBHOOK_TARGETS is on its way out (draining), not a target.
    const plugins = kernel
      .providersOf('alert-sink')
      .map((id) => ({ id: `plugin:${id}`, plugin: id, instance_of: kernel.get(id)?.instance_of ?? null, receiver: id }))
      .filter((t) => !listed.has(t.plugin) && t.instance_of !== sinkId);
    return { targets: [...webhooks, ...plugins], problems };
  }
}

/** The connection options of WEBHOOK_TARGETS receivers, rebuilt when ALERT_WEBHOOK_CA_FILE or the timeout changes (the guard keeps one agent per options object). */
class ReceiverConnections {
  private cached?: { caFile: string | undefined; timeoutMs: number; options: OutboundConnectOptions };

  constructor(private readonly settings: () => { caFile: string | undefined; timeoutMs: number }) {}

  options(): OutboundConnectOptions {
    const { caFile, timeoutMs } = this.settings();
    if (this.cached && this.cached.caFile === caFile && this.cached.timeoutMs === timeoutMs) return this.cached.options;
    const ca = [...rootCertificates, ...(caFile ? [readFileSync(caFile, 'utf8')] : [])];
    // A second beyond the delivery's own deadline (its abort signal), which names the timeout.
    this.cached = { caFile, timeoutMs, options: { ca, timeoutMs: timeoutMs + 1000 } };
    return this.cached.options;
  }
}
