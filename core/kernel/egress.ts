import { EgressDeniedError, type EgressHttpClient, type EgressRequestInit } from '../sdk/index.js';

/**
 * An egress pattern matches a hostname (`api.example.com`), a host and port
 * (`127.0.0.1:8443`) or a subdomain wildcard (`*.example.com`, not the apex).
 */
export function egressAllows(patterns: readonly string[], target: URL): boolean {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return patterns.some((raw) => {
    const pattern = raw.toLowerCase();
    const bracketed = pattern.match(/^\[([^\]]+)\](?::(\d+))?$/);
    let pHost = pattern;
    let pPort: string | undefined;
    if (bracketed) {
      pHost = bracketed[1]!;
      pPort = bracketed[2];
    } else if (/^[^:]+:\d+$/.test(pattern)) {
      [pHost, pPort] = pattern.split(':') as [string, string];
    }
    if (pPort && pPort !== port) return false;
    if (pHost.startsWith('*.')) return host.endsWith(pHost.slice(1)) && host.length > pHost.length - 1;
    return host === pHost;
  });
}

/**
 * A manifest's egress list with `settings:<field>` entries resolved to the host (and port) of
 * the URL held by that setting; an unset or malformed setting allows nothing.
 */
export function resolveEgress(entries: readonly string[], settings: Record<string, unknown>): string[] {
  return entries.flatMap((entry) => {
    const field = /^settings:(.+)$/.exec(entry)?.[1];
    if (field === undefined) return [entry];
    const value = settings[field];
    if (typeof value !== 'string' || value === '') return [];
    try {
      return [new URL(value.includes('://') ? value : `https://${value}`).host];
    } catch {
      return [];
    }
  });
}

export interface EgressClientOptions {
  egress: readonly string[];
  /** Called for every refused request, so the host can audit it. */
  onDenied?: (url: URL) => void;
  signal?: AbortSignal;
  /** The fetch that sends (default the global one): the host's alert receivers trust extra CAs through it. */
  fetch?: typeof fetch;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** fetch restricted to the manifest's egress hosts; each redirect hop is checked too. */
export function createEgressClient(options: EgressClientOptions): EgressHttpClient {
  const check = (url: URL) => {
    if (!egressAllows(options.egress, url)) {
      options.onDenied?.(url);
      throw new EgressDeniedError(url.host);
    }
  };
  const send = options.fetch ?? fetch;
  return {
    allows: (url) => egressAllows(options.egress, new URL(url)),
    async fetch(input, init: EgressRequestInit = {}) {
      let url = new URL(input);
      let method = (init.method ?? 'GET').toUpperCase();
      let body = init.body;
      let headers = init.headers;
      const timeout = AbortSignal.timeout(init.timeoutMs ?? 30_000);
      const signals = [timeout, init.signal, options.signal].filter((s): s is AbortSignal => !!s);
      const signal = AbortSignal.any(signals);
      for (let hop = 0; ; hop++) {
        check(url);
        const response = await send(url, {
          method,
          headers,
          body: body as BodyInit | undefined,
          redirect: 'manual',
          signal,
        });
        if (!REDIRECTS.has(response.status)) return response;
        const location = response.headers.get('location');
        if (!location) return response;
        await response.body?.cancel();
        if (hop >= (init.maxRedirects ?? 5)) throw new Error(`too many redirects fetching ${url.host}`);
        const next = new URL(location, url);
        // Like fetch: credentials never follow a redirect to another origin.
        if (next.origin !== url.origin && headers) headers = withoutCredentials(headers, init.credentialHeaders ?? []);
        url = next;
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
        }
      }
    },
  };
}

const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

function withoutCredentials(headers: Record<string, string>, extra: string[]): Record<string, string> {
  const drop = new Set([...CREDENTIAL_HEADERS, ...extra.map((h) => h.toLowerCase())]);
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}
