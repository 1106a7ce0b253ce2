import type { EgressHttpClient, PluginLogger } from 'switchboard/sdk';
import { signSimBody, SIGNATURE_HEADER } from './signature.js';

/** Attempts per notice; after them the host's status polling still finds the outcome. */
const ATTEMPTS = 3;

/**
 * Tells the gateway how a simulated fax is going, as a hosted provider would: JSON posted to the
 * URL the host handed over with the send, retried on a network error or a 5xx, given up on a 4xx.
 */
export class StatusNotifier {
  constructor(
    private readonly deps: { http: EgressHttpClient; secret: string; logger: PluginLogger; signal: AbortSignal },
  ) {}

  /** True when the manifest's list lets notices go to `url` (the gateway's public URL, or loopback). */
  mayPostTo(url: string): boolean {
    try {
      return this.deps.http.allows(url);
    } catch {
      return false;
    }
  }

  async post(url: string, body: Record<string, unknown>, jobId: string): Promise<void> {
    const raw = JSON.stringify(body);
    const headers = { 'content-type': 'application/json', [SIGNATURE_HEADER]: signSimBody(raw, this.deps.secret) };
    for (let attempt = 1; attempt <= ATTEMPTS && !this.deps.signal.aborted; attempt++) {
      let outcome: string;
      try {
        const res = await this.deps.http.fetch(url, { method: 'POST', headers, body: raw, timeoutMs: 10_000, signal: this.deps.signal });
        await res.body?.cancel();
        if (res.ok) return;
        outcome = `HTTP ${res.status}`;
        if (res.status < 500) {
          this.deps.logger.warn('simulated status notice refused by the gateway', { jobId, outcome });
          return;
        }
      } catch (err) {
        outcome = (err as Error).message;
      }
      this.deps.logger.warn('simulated status notice not delivered', { jobId, attempt, outcome });
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt).unref());
    }
  }
}
