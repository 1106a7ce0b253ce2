import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { CONTRACT_VERSIONS } from '../../../../core/sdk/index.js';
import { parseManifestText, type Manifest } from '../../../../core/manifest/index.js';
import { alertReceiver, type AlertReceiver } from '../../../../core/declarative/alert-sink.js';
import { createEgressClient, resolveEgress, type OutboundConnectOptions, type OutboundGuard } from '../../../../core/kernel/egress.js';
import type { WebhookTarget } from './webhook-targets.js';
import { builtInDefaultOf } from '../../../platform/plugins/built-in-manifests.js';

/**
 * The generic sink's manifest: the built-in alert sink marked `default` (it sends the notice as
 * it is stored), whose runtime every WEBHOOK_TARGETS URL is a receiver of.
 */
export function genericSinkManifest(packageRoot: string, hostVersion: string): Manifest {
  const file = path.join(packageRoot, 'manifests', `${builtInDefaultOf('alert-sink')}.json`);
  const { manifest, diagnostics } = parseManifestText(readFileSync(file, 'utf8'), { hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks: ['alert'] });
  if (!manifest?.alert) throw new Error(`${file}: not a usable alert manifest (${JSON.stringify(diagnostics)})`);
  return manifest;
}

/** A URL with everything after the host hidden, for an operator to recognise a target. */
export function maskTargetUrl(url: URL): string {
  return `${url.protocol}//${url.host}/***`;
}

/**
 * The receivers of WEBHOOK_TARGETS: each URL is the `url` setting of a receiver of the generic
 * sink's runtime, with the egress its manifest declares, reached over the system CAs plus
 * ALERT_WEBHOOK_CA_FILE. A URL written at run time (the config file) goes through the outbound
 * guard (no private or metadata address unless OUTBOUND_ALLOW_HOSTS names the host); one
 * from the environment is the operator's.
 */
export class WebhookReceivers {
  private readonly receivers = new Map<string, AlertReceiver>();
  private connectOptions?: { caFile: string | undefined; timeoutMs: number; options: OutboundConnectOptions };

  constructor(
    private readonly manifest: Manifest,
    private readonly settings: () => { timeoutMs: number; caFile: string | undefined; fromEnvironment: boolean; allowHttpLoopback: boolean },
    private readonly guard: OutboundGuard,
  ) {}

  of(target: WebhookTarget): AlertReceiver {
    const url = target.url.href;
    const operator = this.settings().fromEnvironment;
    const key = `${operator ? 'env' : 'runtime'} ${url}`;
    let receiver = this.receivers.get(key);
    if (!receiver) {
      const settings = { url };
      const egress = resolveEgress(this.manifest.egress ?? [], settings);
      const http = createEgressClient({ egress, runtime: operator ? [] : egress, guard: this.guard, connect: () => this.connect() });
      receiver = alertReceiver(this.manifest, settings, http, { allowHttpLoopback: () => this.settings().allowHttpLoopback });
      this.receivers.set(key, receiver);
    }
    return receiver;
  }

  // Rebuilt when ALERT_WEBHOOK_CA_FILE or the timeout changes; the guard keeps one agent per options object.
  private connect(): OutboundConnectOptions {
    const { caFile, timeoutMs } = this.settings();
    const cached = this.connectOptions;
    if (cached && cached.caFile === caFile && cached.timeoutMs === timeoutMs) return cached.options;
    const ca = [...rootCertificates, ...(caFile ? [readFileSync(caFile, 'utf8')] : [])];
    // A second beyond the delivery's own deadline (its abort signal), which names the timeout.
    this.connectOptions = { caFile, timeoutMs, options: { ca, timeoutMs: timeoutMs + 1000 } };
    return this.connectOptions.options;
  }
}
