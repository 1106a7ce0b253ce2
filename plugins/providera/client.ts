import { EgressDeniedError, RejectedError, UncertainOutcomeError, type EgressHttpClient, type HealthResult, sendAnswerFailure, sendTransportFailure } from 'switchboard/sdk';
import type { ProviderAConfig } from './settings.js';

/** A fax as provider A describes it in `data` of GET /faxes/{id} and of the list. */
export interface ProviderAFax {
  id: number | string;
  status?: string;
  num_pages?: number | null;
  created_at?: string;
  error_type?: string | null;
  error_message?: string | null;
  tags?: Record<string, string> | null;
  recipients?: Array<{ status?: string; error_type?: string | null; error_message?: string | null }>;
}

const HEALTH_TIMEOUT_MS = 5_000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Provider A's own error text (`message`), bounded so a huge page cannot flood an error. */
function messageOf(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

/** Provider A's REST v2 API over the plugin's egress-checked HTTP client. */
export class ProviderAClient {
  private readonly authorization: string;

  constructor(
    private readonly http: EgressHttpClient,
    private readonly config: ProviderAConfig,
  ) {
    this.authorization = `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`).toString('base64')}`;
  }

  /** POST /faxes. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(body: URLSearchParams | FormData, signal?: AbortSignal): Promise<{ id: string; answer: unknown }> {
    const timeoutMs = this.config.timeoutMs;
    let response: Response;
    try {
      response = await this.http.fetch(`${this.config.baseUrl}/faxes`, {
        method: 'POST',
        headers: { authorization: this.authorization, accept: 'application/json' },
        body,
        timeoutMs,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw sendTransportFailure(err, timeoutMs, 'provider A');
    }
    let text = '';
    try {
      text = await response.text();
    } catch (err) {
      if (response.ok) throw new UncertainOutcomeError('provider A accepted the request but its answer was cut off', { cause: err });
    }
    const answer = parseJson(text);
    if (!response.ok) throw sendAnswerFailure(response.status, messageOf(answer), response.headers.get('retry-after'), 'provider A', 'apiKey and apiSecret');
    const id = (answer as { data?: { id?: unknown } } | undefined)?.data?.id;
    if ((typeof id !== 'number' && typeof id !== 'string') || id === '') {
      throw new UncertainOutcomeError(`provider A answered HTTP ${response.status} without a fax id; the fax may have been accepted`);
    }
    return { id: String(id), answer };
  }

  /** GET /faxes/{id}; null when provider A has no such fax. */
  async getFax(id: string): Promise<ProviderAFax | null> {
    const { status, body } = await this.call('GET', `/faxes/${encodeURIComponent(id)}`);
    if (status === 404) return null;
    if (status < 200 || status >= 300) throw new Error(`provider A status lookup failed (HTTP ${status})${suffix(messageOf(body))}`);
    const fax = (body as { data?: ProviderAFax } | undefined)?.data;
    if (!fax || typeof fax !== 'object') throw new Error('provider A status lookup answered without data');
    return fax;
  }

  /** The fax we tagged with `job_id`, newest first if several; null when there is none. */
  async findByJobId(jobId: string): Promise<ProviderAFax | null> {
    const query = new URLSearchParams({ 'tag[job_id]': jobId });
    const { status, body } = await this.call('GET', `/faxes?${query}`);
    if (status < 200 || status >= 300) throw new Error(`provider A lookup by tag failed (HTTP ${status})${suffix(messageOf(body))}`);
    const list = (body as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(list)) throw new Error('provider A lookup by tag answered without a list');
    // Check the tag ourselves: a filter the provider ignored must not match someone else's fax.
    const matches = (list as ProviderAFax[]).filter((fax) => fax?.tags?.job_id === jobId);
    matches.sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
    return matches[0] ?? null;
  }

  /** POST /faxes/{id}/cancel. */
  async cancelFax(id: string): Promise<void> {
    const { status, body } = await this.call('POST', `/faxes/${encodeURIComponent(id)}/cancel`);
    if (status >= 200 && status < 300) return;
    if (status >= 400 && status < 500) throw new RejectedError(`provider A refused to cancel fax ${id} (HTTP ${status})${suffix(messageOf(body))}`);
    throw new Error(`provider A cancel failed (HTTP ${status})${suffix(messageOf(body))}`);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  async ping(): Promise<HealthResult> {
    try {
      const { status } = await this.call('GET', '/faxes?per_page=1', HEALTH_TIMEOUT_MS);
      if (status >= 200 && status < 300) return { ok: true, info: { reachable: true } };
      if (status === 401 || status === 403) return { ok: false, detail: `provider A refused the credentials (HTTP ${status})`, info: { reachable: true } };
      return { ok: false, detail: `provider A answered HTTP ${status}`, info: { reachable: true } };
    } catch (err) {
      return { ok: false, detail: (err as Error).message, info: { reachable: false } };
    }
  }

  private async call(method: string, path: string, timeoutMs = this.config.timeoutMs): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await this.http.fetch(`${this.config.baseUrl}${path}`, {
        method,
        headers: { authorization: this.authorization, accept: 'application/json' },
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof EgressDeniedError) throw err;
      const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'connection failed';
      throw new Error(`provider A unreachable: ${reason}`, { cause: err });
    }
    try {
      return { status: response.status, body: parseJson(await response.text()) };
    } catch (err) {
      throw new Error(`provider A answer was cut off (HTTP ${response.status})`, { cause: err });
    }
  }
}

function suffix(message: string): string {
  return message ? `: ${message}` : '';
}
