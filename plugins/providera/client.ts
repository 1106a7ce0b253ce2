import type { EgressHttpClient, HealthResult } from 'switchboard/sdk';
import { basicAuthorization, HostedFaxApi, type HostedFaxProvider } from 'switchboard/sdk/fax';
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

/** Provider A's own error text (`message`), bounded so a huge page cannot flood an error. */
function messageOf(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

/** How provider A is named in errors, and where its answers say why. */
const PROVIDER_A: HostedFaxProvider = { provider: 'provider A', credentials: 'apiKey and apiSecret', messageOf };

/** Provider A's REST v2 API over the SDK's hosted-fax call pipeline. */
export class ProviderAClient {
  private readonly api: HostedFaxApi;

  constructor(
    http: EgressHttpClient,
    private readonly config: ProviderAConfig,
  ) {
    this.api = new HostedFaxApi(http, PROVIDER_A, { headers: { authorization: basicAuthorization(config.apiKey, config.apiSecret) }, timeoutMs: config.timeoutMs });
  }

  /** POST /faxes. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(body: URLSearchParams | FormData, signal?: AbortSignal): Promise<{ id: string; answer: unknown }> {
    return this.api.send(`${this.config.baseUrl}/faxes`, { body, signal }, (answer) => (answer as { data?: { id?: string | number } } | undefined)?.data?.id);
  }

  /** GET /faxes/{id}; null when provider A has no such fax. */
  async getFax(id: string): Promise<ProviderAFax | null> {
    const answer = await this.api.call('GET', `${this.config.baseUrl}/faxes/${encodeURIComponent(id)}`);
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status >= 300) throw this.api.failure('status lookup', answer);
    const fax = (answer.body as { data?: ProviderAFax } | undefined)?.data;
    if (!fax || typeof fax !== 'object') throw new Error('provider A status lookup answered without data');
    return fax;
  }

  /** The fax we tagged with `job_id`, newest first if several; null when there is none. */
  async findByJobId(jobId: string): Promise<ProviderAFax | null> {
    const query = new URLSearchParams({ 'tag[job_id]': jobId });
    const answer = await this.api.call('GET', `${this.config.baseUrl}/faxes?${query}`);
    if (answer.status < 200 || answer.status >= 300) throw this.api.failure('lookup by tag', answer);
    const list = (answer.body as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(list)) throw new Error('provider A lookup by tag answered without a list');
    // Check the tag ourselves: a filter the provider ignored must not match someone else's fax.
    const matches = (list as ProviderAFax[]).filter((fax) => fax?.tags?.job_id === jobId);
    matches.sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
    return matches[0] ?? null;
  }

  /** POST /faxes/{id}/cancel. */
  async cancelFax(id: string): Promise<void> {
    this.api.checkCancelled(await this.api.call('POST', `${this.config.baseUrl}/faxes/${encodeURIComponent(id)}/cancel`), id);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  ping(): Promise<HealthResult> {
    return this.api.ping(`${this.config.baseUrl}/faxes?per_page=1`);
  }
}
