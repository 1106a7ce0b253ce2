import { readFileSync } from 'node:fs';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import type { Agent } from 'undici';
import { CONTRACT_VERSIONS } from '../../../../core/sdk/index.js';
import { parseManifestText, type Manifest } from '../../../../core/manifest/index.js';
import { alertReceiver, type AlertReceiver } from '../../../../core/declarative/alert-sink.js';
import { createEgressClient, resolveEgress } from '../../../../core/kernel/egress.js';
import type { WebhookTarget } from '../../../platform/config/model/webhook-targets.js';
import { builtInDefaultOf } from '../../../platform/plugins/built-in-manifests.js';

// undici (about a hundred modules) is loaded with the first alert delivery, not at gateway start.
const loadUndici = () => import('undici');

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
 * ALERT_WEBHOOK_CA_FILE (the agent is rebuilt when that setting changes).
 */
export class WebhookReceivers {
  private agent: Agent | undefined;
  private agentCa: string | undefined;
  private readonly receivers = new Map<string, AlertReceiver>();

  constructor(
    private readonly manifest: Manifest,
    private readonly settings: () => { timeoutMs: number; caFile: string | undefined },
  ) {}

  of(target: WebhookTarget): AlertReceiver {
    const url = target.url.href;
    let receiver = this.receivers.get(url);
    if (!receiver) {
      const settings = { url };
      const http = createEgressClient({ egress: resolveEgress(this.manifest.egress ?? [], settings), fetch: (input, init) => this.fetch(input, init) });
      receiver = alertReceiver(this.manifest, settings, http);
      this.receivers.set(url, receiver);
    }
    return receiver;
  }

  async close(): Promise<void> {
    await this.agent?.close().catch(() => {});
  }

  private async fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const undici = await loadUndici();
    const { caFile, timeoutMs } = this.settings();
    if (!this.agent || this.agentCa !== caFile) {
      void this.agent?.close().catch(() => {});
      const extra = caFile ? [readFileSync(caFile, 'utf8')] : [];
      // A second beyond the delivery's own deadline (its abort signal), which names the timeout.
      this.agent = new undici.Agent({ connect: { ca: [...rootCertificates, ...extra], timeout: timeoutMs + 1000 }, headersTimeout: timeoutMs + 1000, bodyTimeout: timeoutMs + 1000 });
      this.agentCa = caFile;
    }
    return (await undici.fetch(input as string, { ...(init as object), dispatcher: this.agent })) as unknown as Response;
  }
}
