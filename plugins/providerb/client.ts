import type { EgressHttpClient, HealthResult } from 'switchboard/sdk';
import { basicAuthorization, HostedFaxApi, type HostedFaxProvider, namesDocumentOfJob } from 'switchboard/sdk/fax';
import type { ProviderBConfig } from './settings.js';

/** A fax as provider B describes it (send answer, GET, list entries). */
export interface ProviderBFax {
  id: string;
  status?: string;
  to?: string;
  contentUrl?: string | string[];
  numberOfPages?: number | null;
  num_pages?: number | null;
  errorCode?: string | number | null;
  errorMessage?: string | null;
}

/** Bound on list pages read while looking a fax up by our reference. */
const LOOKUP_MAX_PAGES = 10;

/** Provider B's error text: `message`, or `error.message`; bounded. */
function messageOf(body: unknown): string {
  const b = body as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = b?.message ?? b?.error?.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

/** How provider B is named in errors, and where its answers say why. */
const PROVIDER_B: HostedFaxProvider = { provider: 'provider B', credentials: 'apiKey, apiSecret and projectId', messageOf };

/** Provider B's REST v3 API over the SDK's hosted-fax call pipeline. */
export class ProviderBClient {
  private readonly api: HostedFaxApi;
  private readonly faxesUrl: string;

  constructor(http: EgressHttpClient, config: ProviderBConfig) {
    this.api = new HostedFaxApi(http, PROVIDER_B, { headers: { authorization: basicAuthorization(config.apiKey, config.apiSecret) }, timeoutMs: config.timeoutMs });
    this.faxesUrl = `${config.baseUrl}/projects/${encodeURIComponent(config.projectId)}/faxes`;
  }

  /** POST /projects/{p}/faxes. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(body: string | FormData, contentType: string | undefined, signal?: AbortSignal): Promise<ProviderBFax> {
    const { answer } = await this.api.send(this.faxesUrl, { body, contentType, signal }, (answer) => {
      const id = (answer as ProviderBFax | undefined)?.id;
      return typeof id === 'string' ? id : undefined;
    });
    return answer as ProviderBFax;
  }

  /** GET /projects/{p}/faxes/{id}; null when provider B has no such fax. */
  async getFax(id: string): Promise<ProviderBFax | null> {
    const answer = await this.api.call('GET', `${this.faxesUrl}/${encodeURIComponent(id)}`);
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status >= 300) throw this.api.failure('status lookup', answer);
    if (typeof (answer.body as ProviderBFax | undefined)?.id !== 'string') throw new Error('provider B status lookup answered without a fax');
    return answer.body as ProviderBFax;
  }

  /** The fax to `to` whose contentUrl is our job's PDF URL, following nextPageToken; null when none. */
  findByDocument(jobId: string, to: string): Promise<ProviderBFax | null> {
    const pageUrl = (pageToken?: string) => `${this.faxesUrl}?${new URLSearchParams(pageToken ? { to, pageToken } : { to })}`;
    type Page = { faxes?: unknown; nextPageToken?: unknown } | undefined;
    const pages = {
      items: (body: unknown) => (body as Page)?.faxes,
      next: (body: unknown) => {
        const token = (body as Page)?.nextPageToken;
        return typeof token === 'string' && token !== '' ? pageUrl(token) : undefined;
      },
    };
    return this.api.findInPages<ProviderBFax>('lookup by number', pageUrl(), pages, (fax) => namesDocumentOfJob(fax?.contentUrl, jobId), LOOKUP_MAX_PAGES);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  ping(): Promise<HealthResult> {
    return this.api.ping(`${this.faxesUrl}?pageSize=1`);
  }
}
