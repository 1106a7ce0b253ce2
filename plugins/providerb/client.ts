import { EgressDeniedError, UncertainOutcomeError, type EgressHttpClient, type HealthResult, sendAnswerFailure, sendTransportFailure } from 'switchboard/sdk';
import type { ProviderBConfig } from './settings.js';
import { isDocumentOfJob } from './send-request.js';

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

const HEALTH_TIMEOUT_MS = 5_000;
/** Bound on list pages read while looking a fax up by our reference. */
const LOOKUP_MAX_PAGES = 10;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Provider B's error text: `message`, or `error.message`; bounded. */
function messageOf(body: unknown): string {
  const b = body as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = b?.message ?? b?.error?.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

function suffix(message: string): string {
  return message ? `: ${message}` : '';
}

/** Provider B's REST v3 API over the plugin's egress-checked HTTP client. */
export class ProviderBClient {
  private readonly authorization: string;
  private readonly faxesUrl: string;

  constructor(
    private readonly http: EgressHttpClient,
    private readonly config: ProviderBConfig,
  ) {
    this.authorization = `Basic ${Buffer.from(`${config.apiKey}:${config.apiSecret}`).toString('base64')}`;
    this.faxesUrl = `${config.baseUrl}/projects/${encodeURIComponent(config.projectId)}/faxes`;
  }

  /** POST /projects/{p}/faxes. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(body: string | FormData, contentType: string | undefined, signal?: AbortSignal): Promise<ProviderBFax> {
    const timeoutMs = this.config.timeoutMs;
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (contentType) headers['content-type'] = contentType;
    let response: Response;
    try {
      response = await this.http.fetch(this.faxesUrl, { method: 'POST', headers, body, timeoutMs, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw sendTransportFailure(err, timeoutMs, 'provider B');
    }
    let text = '';
    try {
      text = await response.text();
    } catch (err) {
      if (response.ok) throw new UncertainOutcomeError('provider B accepted the request but its answer was cut off', { cause: err });
    }
    const answer = parseJson(text);
    if (!response.ok) throw sendAnswerFailure(response.status, messageOf(answer), response.headers.get('retry-after'), 'provider B', 'apiKey, apiSecret and projectId');
    const fax = answer as ProviderBFax | undefined;
    if (typeof fax?.id !== 'string' || fax.id === '') {
      throw new UncertainOutcomeError(`provider B answered HTTP ${response.status} without a fax id; the fax may have been accepted`);
    }
    return fax;
  }

  /** GET /projects/{p}/faxes/{id}; null when provider B has no such fax. */
  async getFax(id: string): Promise<ProviderBFax | null> {
    const { status, body } = await this.call(`${this.faxesUrl}/${encodeURIComponent(id)}`);
    if (status === 404) return null;
    if (status < 200 || status >= 300) throw new Error(`provider B status lookup failed (HTTP ${status})${suffix(messageOf(body))}`);
    if (typeof (body as ProviderBFax | undefined)?.id !== 'string') throw new Error('provider B status lookup answered without a fax');
    return body as ProviderBFax;
  }

  /** The fax to `to` whose contentUrl is our job's PDF URL, following nextPageToken; null when none. */
  async findByDocument(jobId: string, to: string): Promise<ProviderBFax | null> {
    let pageToken: string | undefined;
    for (let page = 0; page < LOOKUP_MAX_PAGES; page++) {
      const query = new URLSearchParams({ to });
      if (pageToken) query.set('pageToken', pageToken);
      const { status, body } = await this.call(`${this.faxesUrl}?${query}`);
      if (status < 200 || status >= 300) throw new Error(`provider B lookup by number failed (HTTP ${status})${suffix(messageOf(body))}`);
      const list = body as { faxes?: unknown; nextPageToken?: unknown } | undefined;
      if (!Array.isArray(list?.faxes)) throw new Error('provider B lookup by number answered without a list');
      const match = (list.faxes as ProviderBFax[]).find((fax) => isDocumentOfJob(fax?.contentUrl, jobId));
      if (match) return match;
      if (typeof list.nextPageToken !== 'string' || list.nextPageToken === '') return null;
      pageToken = list.nextPageToken;
    }
    throw new Error(`provider B lookup gave up after ${LOOKUP_MAX_PAGES} pages of faxes to the number`);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  async ping(): Promise<HealthResult> {
    try {
      const { status } = await this.call(`${this.faxesUrl}?pageSize=1`, HEALTH_TIMEOUT_MS);
      if (status >= 200 && status < 300) return { ok: true, info: { reachable: true } };
      if (status === 401 || status === 403) return { ok: false, detail: `provider B refused the credentials (HTTP ${status})`, info: { reachable: true } };
      return { ok: false, detail: `provider B answered HTTP ${status}`, info: { reachable: true } };
    } catch (err) {
      return { ok: false, detail: (err as Error).message, info: { reachable: false } };
    }
  }

  private async call(url: string, timeoutMs = this.config.timeoutMs): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await this.http.fetch(url, { headers: { authorization: this.authorization, accept: 'application/json' }, timeoutMs });
    } catch (err) {
      if (err instanceof EgressDeniedError) throw err;
      const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'connection failed';
      throw new Error(`provider B unreachable: ${reason}`, { cause: err });
    }
    try {
      return { status: response.status, body: parseJson(await response.text()) };
    } catch (err) {
      throw new Error(`provider B answer was cut off (HTTP ${response.status})`, { cause: err });
    }
  }
}
