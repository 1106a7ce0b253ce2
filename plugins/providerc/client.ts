import { EgressDeniedError, RejectedError, UncertainOutcomeError, type EgressHttpClient, type HealthResult, sendAnswerFailure, sendTransportFailure } from 'switchboard/sdk';
import type { ProviderCConfig } from './settings.js';
import { isDocumentOfJob } from './send-request.js';

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

/** Provider C's error text (`message`, with its numeric `code`); bounded. */
function messageOf(body: unknown): string {
  const b = body as { message?: unknown; code?: unknown } | undefined;
  if (typeof b?.message !== 'string') return '';
  const code = typeof b.code === 'number' || typeof b.code === 'string' ? ` (code ${b.code})` : '';
  return b.message.slice(0, 300) + code;
}

function suffix(message: string): string {
  return message ? `: ${message}` : '';
}

/** Provider C's LaML fax API over the plugin's egress-checked HTTP client. */
export class ProviderCClient {
  private readonly authorization: string;
  private readonly faxesUrl: string;

  constructor(
    private readonly http: EgressHttpClient,
    private readonly config: ProviderCConfig,
  ) {
    this.authorization = `Basic ${Buffer.from(`${config.projectId}:${config.apiToken}`).toString('base64')}`;
    this.faxesUrl = `${config.baseUrl}/Accounts/${encodeURIComponent(config.projectId)}/Faxes`;
  }

  /** POST .../Faxes.json. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves. */
  async createFax(form: URLSearchParams, signal?: AbortSignal): Promise<ProviderCFax> {
    const timeoutMs = this.config.timeoutMs;
    let response: Response;
    try {
      response = await this.http.fetch(`${this.faxesUrl}.json`, {
        method: 'POST',
        headers: { authorization: this.authorization, accept: 'application/json' },
        body: form,
        timeoutMs,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw sendTransportFailure(err, timeoutMs, 'provider C');
    }
    let text = '';
    try {
      text = await response.text();
    } catch (err) {
      if (response.ok) throw new UncertainOutcomeError('provider C accepted the request but its answer was cut off', { cause: err });
    }
    const answer = parseJson(text);
    if (!response.ok) throw sendAnswerFailure(response.status, messageOf(answer), response.headers.get('retry-after'), 'provider C', 'projectId and apiToken');
    const fax = answer as ProviderCFax | undefined;
    if (typeof fax?.sid !== 'string' || fax.sid === '') {
      throw new UncertainOutcomeError(`provider C answered HTTP ${response.status} without a fax sid; the fax may have been accepted`);
    }
    return fax;
  }

  /** GET .../Faxes/{sid}.json; null when provider C has no such fax. */
  async getFax(sid: string): Promise<ProviderCFax | null> {
    const { status, body } = await this.call('GET', `${this.faxesUrl}/${encodeURIComponent(sid)}.json`);
    if (status === 404) return null;
    if (status < 200 || status >= 300) throw new Error(`provider C status lookup failed (HTTP ${status})${suffix(messageOf(body))}`);
    if (typeof (body as ProviderCFax | undefined)?.sid !== 'string') throw new Error('provider C status lookup answered without a fax');
    return body as ProviderCFax;
  }

  /** The fax to `to` whose media_url is our job's PDF URL, following next_page_uri; null when none. */
  async findByDocument(jobId: string, to: string): Promise<ProviderCFax | null> {
    let url = `${this.faxesUrl}.json?${new URLSearchParams({ To: to })}`;
    for (let page = 0; page < LOOKUP_MAX_PAGES; page++) {
      const { status, body } = await this.call('GET', url);
      if (status < 200 || status >= 300) throw new Error(`provider C lookup by number failed (HTTP ${status})${suffix(messageOf(body))}`);
      const list = body as { faxes?: unknown; next_page_uri?: unknown } | undefined;
      if (!Array.isArray(list?.faxes)) throw new Error('provider C lookup by number answered without a list');
      const match = (list.faxes as ProviderCFax[]).find((fax) => isDocumentOfJob(fax?.media_url, jobId));
      if (match) return match;
      if (typeof list.next_page_uri !== 'string' || list.next_page_uri === '') return null;
      // next_page_uri is a path on the API host.
      url = new URL(list.next_page_uri, this.config.baseUrl).toString();
    }
    throw new Error(`provider C lookup gave up after ${LOOKUP_MAX_PAGES} pages of faxes to the number`);
  }

  /** Twilio-compatible cancel: POST .../Faxes/{sid}.json with Status=canceled. */
  async cancelFax(sid: string): Promise<void> {
    const { status, body } = await this.call('POST', `${this.faxesUrl}/${encodeURIComponent(sid)}.json`, new URLSearchParams({ Status: 'canceled' }));
    if (status >= 200 && status < 300) return;
    if (status >= 400 && status < 500) throw new RejectedError(`provider C refused to cancel fax ${sid} (HTTP ${status})${suffix(messageOf(body))}`);
    throw new Error(`provider C cancel failed (HTTP ${status})${suffix(messageOf(body))}`);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  async ping(): Promise<HealthResult> {
    try {
      const { status } = await this.call('GET', `${this.faxesUrl}.json?PageSize=1`, undefined, HEALTH_TIMEOUT_MS);
      if (status >= 200 && status < 300) return { ok: true, info: { reachable: true } };
      if (status === 401 || status === 403) return { ok: false, detail: `provider C refused the credentials (HTTP ${status})`, info: { reachable: true } };
      return { ok: false, detail: `provider C answered HTTP ${status}`, info: { reachable: true } };
    } catch (err) {
      return { ok: false, detail: (err as Error).message, info: { reachable: false } };
    }
  }

  private async call(method: string, url: string, body?: URLSearchParams, timeoutMs = this.config.timeoutMs): Promise<{ status: number; body: unknown }> {
    let response: Response;
    try {
      response = await this.http.fetch(url, {
        method,
        headers: { authorization: this.authorization, accept: 'application/json' },
        ...(body ? { body } : {}),
        timeoutMs,
      });
    } catch (err) {
      if (err instanceof EgressDeniedError) throw err;
      const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'connection failed';
      throw new Error(`provider C unreachable: ${reason}`, { cause: err });
    }
    try {
      return { status: response.status, body: parseJson(await response.text()) };
    } catch (err) {
      throw new Error(`provider C answer was cut off (HTTP ${response.status})`, { cause: err });
    }
  }
}
