import type { EgressHttpClient, HealthResult } from 'switchboard/sdk';
import { basicAuthorization, HostedFaxApi, type HostedFaxProvider, namesDocumentOfJob } from 'switchboard/sdk/fax';
import type { ProviderCConfig } from './settings.js';

/** A fax resource as provider C (Twilio-compatible LaML) describes it. */
export interface ProviderCFax {
  sid: string;
  status?: string;
  to?: string;
  media_url?: string | null;
  num_pages?: number | string | null;
  error_code?: string | number | null;
  error_message?: string | null;
}

/** Bound on list pages read while looking a fax up by our reference. */
const LOOKUP_MAX_PAGES = 10;

/** Provider C's error text (`message`, with its numeric `code`); bounded. */
function messageOf(body: unknown): string {
  const b = body as { message?: unknown; code?: unknown } | undefined;
  if (typeof b?.message !== 'string') return '';
  const code = typeof b.code === 'number' || typeof b.code === 'string' ? ` (code ${b.code})` : '';
  return b.message.slice(0, 300) + code;
}

/** How provider C is named in errors, and where its answers say why. */
const PROVIDER_C: HostedFaxProvider = { provider: 'provider C', credentials: 'projectId and apiToken', messageOf };

/** Provider C's LaML fax API over the SDK's hosted-fax call pipeline. */
export class ProviderCClient {
  private readonly api: HostedFaxApi;
  private readonly faxesUrl: string;

  constructor(
    http: EgressHttpClient,
    private readonly config: ProviderCConfig,
  ) {
    this.api = new HostedFaxApi(http, PROVIDER_C, { headers: { authorization: basicAuthorization(config.projectId, config.apiToken) }, timeoutMs: config.timeoutMs });
    this.faxesUrl = `${config.baseUrl}/Accounts/${encodeURIComponent(config.projectId)}/Faxes`;
  }

  /** POST .../Faxes.json. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(form: URLSearchParams, signal?: AbortSignal): Promise<ProviderCFax> {
    const sidOf = (answer: unknown) => {
      const sid = (answer as ProviderCFax | undefined)?.sid;
      return typeof sid === 'string' ? sid : undefined;
    };
    const { answer } = await this.api.send(`${this.faxesUrl}.json`, { body: form, signal }, sidOf, 'fax sid');
    return answer as ProviderCFax;
  }

  /** GET .../Faxes/{sid}.json; null when provider C has no such fax. */
  async getFax(sid: string): Promise<ProviderCFax | null> {
    const answer = await this.api.call('GET', `${this.faxesUrl}/${encodeURIComponent(sid)}.json`);
    if (answer.status === 404) return null;
    if (answer.status < 200 || answer.status >= 300) throw this.api.failure('status lookup', answer);
    if (typeof (answer.body as ProviderCFax | undefined)?.sid !== 'string') throw new Error('provider C status lookup answered without a fax');
    return answer.body as ProviderCFax;
  }

  /** The fax to `to` whose media_url is our job's PDF URL, following next_page_uri; null when none. */
  findByDocument(jobId: string, to: string): Promise<ProviderCFax | null> {
    type Page = { faxes?: unknown; next_page_uri?: unknown } | undefined;
    const pages = {
      items: (body: unknown) => (body as Page)?.faxes,
      next: (body: unknown) => {
        const next = (body as Page)?.next_page_uri;
        // next_page_uri is a path on the API host.
        return typeof next === 'string' && next !== '' ? new URL(next, this.config.baseUrl).toString() : undefined;
      },
    };
    const first = `${this.faxesUrl}.json?${new URLSearchParams({ To: to })}`;
    return this.api.findInPages<ProviderCFax>('lookup by number', first, pages, (fax) => namesDocumentOfJob(fax?.media_url, jobId), LOOKUP_MAX_PAGES);
  }

  /** Twilio-compatible cancel: POST .../Faxes/{sid}.json with Status=canceled. */
  async cancelFax(sid: string): Promise<void> {
    this.api.checkCancelled(await this.api.call('POST', `${this.faxesUrl}/${encodeURIComponent(sid)}.json`, { body: new URLSearchParams({ Status: 'canceled' }) }), sid);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  ping(): Promise<HealthResult> {
    return this.api.ping(`${this.faxesUrl}.json?PageSize=1`);
  }
}
