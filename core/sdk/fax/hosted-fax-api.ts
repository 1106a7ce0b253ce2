import { EgressDeniedError, RejectedError, UncertainOutcomeError } from '../errors.js';
import type { HealthResult } from '../health.js';
import type { EgressHttpClient } from '../plugin.js';
import { BodyTooLargeError, readBodyCapped } from '../read-body-capped.js';
import { answerFailure, transportFailure, type CallSubject } from './send-outcome.js';

/** An answer of a hosted fax API: its status and its body as JSON (undefined when it is not JSON). */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** What a plugin says about its provider: fixed for the plugin, written once at module level. */
export interface HostedFaxProvider {
  /** Names the provider in every message: `provider A`. */
  provider: string;
  /** The settings to check when the credentials are refused: `apiKey and apiSecret`. */
  credentials: string;
  /** The provider's own error text in an answer body, for messages; '' when there is none. */
  messageOf(body: unknown): string;
}

/** How this generation calls it: from its settings. */
export interface HostedFaxConnection {
  /** Sent with every call (Authorization, say); `accept: application/json` is added. */
  headers: Record<string, string>;
  /** The default time limit of a call. */
  timeoutMs: number;
}

/** The time limit of health checks: a probe must not hold /health for a send's timeout. */
const PING_TIMEOUT_MS = 5_000;

/** Answers are small JSON documents; a larger body is refused rather than held in memory. */
const MAX_ANSWER_BYTES = 1024 * 1024;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The call pipeline of a hosted (REST) fax provider: post a send and classify its outcome by the
 * SDK's rules, look faxes up, cancel, ping. A plugin keeps only its URLs, bodies and field names.
 */
export class HostedFaxApi {
  private readonly headers: Record<string, string>;
  private readonly options: HostedFaxProvider & HostedFaxConnection & { http: EgressHttpClient };

  constructor(http: EgressHttpClient, provider: HostedFaxProvider, connection: HostedFaxConnection) {
    this.options = { ...provider, ...connection, http };
    this.headers = { ...connection.headers, accept: 'application/json' };
  }

  private get subject(): CallSubject {
    return { provider: this.options.provider, credentials: this.options.credentials };
  }

  /**
   * Posts a send. Throws NotAccepted / Rejected / UncertainOutcome per what the answer proves;
   * an answer without the provider's id (`idOf`) is uncertain: the fax may exist.
   */
  async send(
    url: string,
    request: { body: string | FormData | URLSearchParams; contentType?: string | undefined; signal?: AbortSignal | undefined },
    idOf: (answer: unknown) => string | number | undefined,
    idName = 'fax id',
  ): Promise<{ id: string; answer: unknown }> {
    const { provider, timeoutMs } = this.options;
    const headers = request.contentType ? { ...this.headers, 'content-type': request.contentType } : this.headers;
    let response: Response;
    try {
      response = await this.options.http.fetch(url, { method: 'POST', headers, body: request.body, timeoutMs, ...(request.signal ? { signal: request.signal } : {}) });
    } catch (err) {
      throw transportFailure(err, timeoutMs, this.subject);
    }
    let text = '';
    try {
      text = (await readBodyCapped(response, MAX_ANSWER_BYTES)).toString('utf8');
    } catch (err) {
      if (response.ok) {
        const why = err instanceof BodyTooLargeError ? `its answer was over ${MAX_ANSWER_BYTES} bytes` : 'its answer was cut off';
        throw new UncertainOutcomeError(`${provider} accepted the request but ${why}`, { cause: err });
      }
    }
    const answer = parseJson(text);
    if (!response.ok) {
      throw answerFailure(response.status, { message: this.options.messageOf(answer), retryAfter: response.headers.get('retry-after') }, this.subject);
    }
    const id = idOf(answer);
    if ((typeof id !== 'number' && typeof id !== 'string') || id === '') {
      throw new UncertainOutcomeError(`${provider} answered HTTP ${response.status} without a ${idName}; the fax may have been accepted`);
    }
    return { id: String(id), answer };
  }

  /** A lookup or other call whose failure is an ordinary error (nothing to classify). */
  async call(method: string, url: string, init: { body?: URLSearchParams; timeoutMs?: number } = {}): Promise<ApiAnswer> {
    const { provider } = this.options;
    const timeoutMs = init.timeoutMs ?? this.options.timeoutMs;
    let response: Response;
    try {
      response = await this.options.http.fetch(url, { method, headers: this.headers, ...(init.body ? { body: init.body } : {}), timeoutMs });
    } catch (err) {
      if (err instanceof EgressDeniedError) throw err;
      const reason = (err as Error)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'connection failed';
      throw new Error(`${provider} unreachable: ${reason}`, { cause: err });
    }
    try {
      return { status: response.status, body: parseJson((await readBodyCapped(response, MAX_ANSWER_BYTES)).toString('utf8')) };
    } catch (err) {
      throw new Error(`${provider} answer was cut off (HTTP ${response.status})`, { cause: err });
    }
  }

  /**
   * Walks a paged list for the first item `matches` accepts: `firstUrl`, then the URL `pages.next`
   * reads from each page's body (undefined on the last), at most `maxPages` pages. Null when no
   * page has one; an error when a page fails, is not a list, or the pages do not end.
   */
  async findInPages<T>(
    what: string,
    firstUrl: string,
    pages: { items(body: unknown): unknown; next(body: unknown): string | undefined },
    matches: (item: T) => boolean,
    maxPages = 10,
  ): Promise<T | null> {
    let url: string | undefined = firstUrl;
    for (let page = 0; page < maxPages && url !== undefined; page++) {
      const answer = await this.call('GET', url);
      if (answer.status < 200 || answer.status >= 300) throw this.failure(what, answer);
      const items = pages.items(answer.body);
      if (!Array.isArray(items)) throw new Error(`${this.options.provider} ${what} answered without a list`);
      const match = (items as T[]).find((item) => matches(item));
      if (match !== undefined) return match;
      url = pages.next(answer.body);
    }
    if (url === undefined) return null;
    throw new Error(`${this.options.provider} ${what} gave up after ${maxPages} pages`);
  }

  /** The error of a failed call: `provider B status lookup failed (HTTP 500): <its words>`. */
  failure(what: string, answer: ApiAnswer): Error {
    return new Error(`${this.options.provider} ${what} failed (HTTP ${answer.status})${this.said(answer)}`);
  }

  /** Throws unless a cancel was answered 2xx; a 4xx is a refusal for good. */
  checkCancelled(answer: ApiAnswer, providerSid: string): void {
    if (answer.status >= 200 && answer.status < 300) return;
    if (answer.status >= 400 && answer.status < 500) {
      throw new RejectedError(`${this.options.provider} refused to cancel fax ${providerSid} (HTTP ${answer.status})${this.said(answer)}`);
    }
    throw this.failure('cancel', answer);
  }

  /** A cheap authenticated GET: are we configured, reachable and let in? */
  async ping(url: string): Promise<HealthResult> {
    const { provider } = this.options;
    try {
      const { status } = await this.call('GET', url, { timeoutMs: PING_TIMEOUT_MS });
      if (status >= 200 && status < 300) return { ok: true, info: { reachable: true } };
      if (status === 401 || status === 403) return { ok: false, detail: `${provider} refused the credentials (HTTP ${status})`, info: { reachable: true } };
      return { ok: false, detail: `${provider} answered HTTP ${status}`, info: { reachable: true } };
    } catch (err) {
      return { ok: false, detail: (err as Error).message, info: { reachable: false } };
    }
  }

  private said(answer: ApiAnswer): string {
    const message = this.options.messageOf(answer.body);
    return message ? `: ${message}` : '';
  }
}

/** `Basic base64(user:password)`, the credential of most hosted fax APIs. */
export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
