import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Agent } from 'undici';

// undici (about a hundred modules) is loaded with the first alert delivery, not at gateway start.
const loadUndici = () => import('undici');

export type TransportOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'permanent'; status: number; detail: string }
  | { kind: 'transient'; status?: number; detail: string };

/**
 * POSTs JSON to a receiver: 2xx delivered; 4xx (but 408 and 429) a permanent failure; 5xx,
 * 408, 429, no answer within the timeout or a broken connection a transient one.
 */
export class WebhookTransport {
  private agent: Agent | undefined;
  private agentCa: string | undefined;

  constructor(private readonly settings: () => { timeoutMs: number; caFile: string | undefined }) {}

  async post(url: URL, body: string, headers: Record<string, string>): Promise<TransportOutcome> {
    const { timeoutMs } = this.settings();
    const undici = await loadUndici();
    try {
      const res = await undici.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        dispatcher: this.dispatcher(undici.Agent),
      });
      await res.body?.cancel().catch(() => {});
      const status = res.status;
      if (status >= 200 && status < 300) return { kind: 'delivered', status };
      if (status === 408 || status === 429 || status >= 500) return { kind: 'transient', status, detail: `receiver answered HTTP ${status}` };
      return { kind: 'permanent', status, detail: `receiver answered HTTP ${status}` };
    } catch (err) {
      const name = (err as Error)?.name;
      if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'transient', detail: `no answer within ${timeoutMs} ms` };
      return { kind: 'transient', detail: `connection failed: ${causeCode(err)}` };
    }
  }

  async close(): Promise<void> {
    await this.agent?.close().catch(() => {});
  }

  // The system CAs plus ALERT_WEBHOOK_CA_FILE; rebuilt when the file setting changes.
  private dispatcher(AgentClass: typeof Agent): Agent {
    const { caFile, timeoutMs } = this.settings();
    if (!this.agent || this.agentCa !== caFile) {
      void this.agent?.close().catch(() => {});
      const extra = caFile ? [readFileSync(caFile, 'utf8')] : [];
      this.agent = new AgentClass({ connect: { ca: [...rootCertificates, ...extra], timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
      this.agentCa = caFile;
    }
    return this.agent;
  }
}

function causeCode(err: unknown): string {
  let current: unknown = err;
  for (let i = 0; i < 4 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return (err as Error)?.message ?? 'unknown';
}
