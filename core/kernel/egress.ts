import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { Agent } from 'undici';
import { EgressDeniedError, type EgressHttpClient, type EgressRequestInit } from '../sdk/index.js';
import { refusedAddressReason } from './outbound-address.js';

// undici (about a hundred modules) is loaded with the first checked request, not at start.
const loadUndici = () => import('undici');

/** An outbound request refused because its host is, or resolves to, a non-public address. */
export class OutboundAddressError extends EgressDeniedError {
  readonly address: string;
  constructor(host: string, address: string, reason: string) {
    super(host);
    this.name = 'OutboundAddressError';
    this.address = address;
    this.message = `outbound request to "${host}" refused: ${address === host ? 'it is' : `it resolves to ${address},`} a ${reason} address; a URL set at run time reaches only public addresses unless OUTBOUND_ALLOW_HOSTS (environment) names the host`;
  }
}

/** A request whose answer's body the caller does not read (a webhook delivery). */
export interface OutboundPost {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** The answer to an OutboundPost: its status; the body was read (at most 128 KiB) and dropped. */
export interface OutboundAnswer {
  status: number;
}

/** TLS and timeout options of the connections a guarded request opens. */
export interface OutboundConnectOptions {
  /** Trusted CAs (the system's replaced: pass rootCertificates along to keep them). */
  ca?: readonly string[];
  timeoutMs?: number;
}

/**
 * The one guard for URLs set at run time (plugin settings, the judge URL, the LLM gateway URL,
 * alert receivers): the host must be a public address after DNS resolution, unless it is
 * named in OUTBOUND_ALLOW_HOSTS. The lookup that checks is the lookup the connection uses, so
 * a second (rebinding) DNS answer cannot switch the connection to loopback after the check.
 */
export class OutboundGuard {
  private readonly agents = new Map<string, Promise<Agent>>();
  private readonly caIds = new WeakMap<readonly string[], number>();
  private nextCaId = 1;

  /** `allowHosts` is read on every request, so a configuration reload applies at once. */
  constructor(private readonly allowHosts: () => readonly string[] = () => []) {}

  /** True when OUTBOUND_ALLOW_HOSTS names the URL's host (hostnames compared as URLs spell them). */
  allowsHost(url: URL): boolean {
    const host = url.hostname.toLowerCase();
    return this.allowHosts().some((entry) => normalizeHost(entry) === host);
  }

  /** Throws OutboundAddressError when the URL's host is a literal non-public address not allowed. */
  assertLiteral(url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!isIP(host) || this.allowsHost(url)) return;
    const reason = refusedAddressReason(host);
    if (reason) throw new OutboundAddressError(host, host, reason);
  }

  /**
   * Sends a request to a URL set at run time: a literal address is checked here, a hostname
   * through the connection's own DNS lookup (every answer must be public; the first is used).
   */
  async fetch(url: URL, init: RequestInit, connect: OutboundConnectOptions = {}): Promise<Response> {
    this.assertLiteral(url);
    const checked = !isIP(url.hostname.replace(/^\[|\]$/g, '')) && !this.allowsHost(url);
    return this.send(url, init, connect, checked);
  }

  /**
   * The address a connection that is not HTTP (SMTP) to the URL's host uses, checked like
   * fetch checks: a literal here, a hostname's every DNS answer unless OUTBOUND_ALLOW_HOSTS names it.
   */
  async resolveAddress(url: URL, checked = true): Promise<{ address: string; family: number }> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (checked) this.assertLiteral(url);
    if (isIP(host)) return { address: host, family: isIP(host) };
    const lookup = checked && !this.allowsHost(url) ? checkedLookup : (h: string, o: LookupOptions, cb: LookupCallback) => dnsLookup(h, o, cb as never);
    return new Promise((resolve, reject) =>
      lookup(host, {}, (err, address, family) => (err ? reject(err) : resolve({ address: address as string, family: family ?? 4 }))),
    );
  }

  /**
   * Sends a request checked like fetch, on the same agents (the same pinned lookup), through
   * undici's request API: no WHATWG Request, Headers or streams, a quarter of fetch's CPU per
   * delivery. The answer's body is drained, not cancelled, so the connection is kept alive.
   */
  async request(url: URL, init: OutboundPost, connect: OutboundConnectOptions = {}): Promise<OutboundAnswer> {
    this.assertLiteral(url);
    const checked = !isIP(url.hostname.replace(/^\[|\]$/g, '')) && !this.allowsHost(url);
    const agent = await this.agent(checked, connect);
    try {
      const res = await agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: init.method as 'POST', headers: init.headers, body: init.body ?? null, signal: init.signal ?? null });
      await res.body.dump();
      return { status: res.statusCode };
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundAddressError) throw cause;
      throw err;
    }
  }

  /** Sends without any address check (an operator's URL) over the same connection options. */
  async fetchUnchecked(url: URL, init: RequestInit, connect: OutboundConnectOptions = {}): Promise<Response> {
    return this.send(url, init, connect, false);
  }

  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map(async (a) => (await a).close().catch(() => {})));
  }

  private async send(url: URL, init: RequestInit, connect: OutboundConnectOptions, checked: boolean): Promise<Response> {
    if (!checked && !connect.ca && !connect.timeoutMs) return fetch(url, init);
    const undici = await loadUndici();
    const agent = await this.agent(checked, connect);
    try {
      return (await undici.fetch(url, { ...(init as object), dispatcher: agent })) as unknown as Response;
    } catch (err) {
      // fetch wraps the lookup's refusal as "fetch failed"; the refusal is the answer.
      const cause = (err as { cause?: unknown }).cause;
      if (cause instanceof OutboundAddressError) throw cause;
      throw err;
    }
  }

  private agent(checked: boolean, connect: OutboundConnectOptions): Promise<Agent> {
    // CA lists are known by identity: a caller keeps one list object per CA setting.
    let caId = connect.ca ? this.caIds.get(connect.ca) : 0;
    if (caId === undefined) this.caIds.set(connect.ca!, (caId = this.nextCaId++));
    const key = `${checked} ${caId} ${connect.timeoutMs ?? 0}`;
    let agent = this.agents.get(key);
    if (!agent) {
      agent = loadUndici().then(
        (undici) =>
          new undici.Agent({
            connect: { ...(connect.ca ? { ca: [...connect.ca] } : {}), ...(connect.timeoutMs ? { timeout: connect.timeoutMs } : {}), ...(checked ? { lookup: checkedLookup } : {}) },
            ...(connect.timeoutMs ? { headersTimeout: connect.timeoutMs, bodyTimeout: connect.timeoutMs } : {}),
          }),
      );
      this.agents.set(key, agent);
    }
    return agent;
  }
}

/** The hosts of an OUTBOUND_ALLOW_HOSTS value (comma-separated). */
export function outboundAllowHosts(setting: string | undefined): string[] {
  return (setting ?? '').split(',').map((h) => h.trim()).filter(Boolean);
}

/** A host of OUTBOUND_ALLOW_HOSTS spelled as a URL's hostname (`127.1` is `127.0.0.1`, `::1` is `[::1]`). */
function normalizeHost(entry: string): string {
  const trimmed = entry.trim().toLowerCase();
  const bracketed = trimmed.includes(':') && !trimmed.startsWith('[') ? `[${trimmed}]` : trimmed;
  try {
    return new URL(`http://${bracketed}/`).hostname;
  } catch {
    return trimmed;
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** net.connect's lookup: resolves every address, refuses the host when any is non-public. */
function checkedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    for (const { address } of addresses) {
      const reason = refusedAddressReason(address);
      if (reason) return callback(new OutboundAddressError(hostname, address, reason) as unknown as NodeJS.ErrnoException, []);
    }
    if (!addresses.length) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}


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

/**
 * Which hosts of a resolved egress list the operator chose: literal manifest entries, and
 * `settings:<field>` entries whose setting came from the environment or the plugin's default.
 * The others name URLs written at run time: their addresses go through the OutboundGuard.
 */
export function runtimeEgress(entries: readonly string[], settings: Record<string, unknown>, operatorSetting: (field: string) => boolean): string[] {
  const operator = new Set(resolveEgress(entries.filter((e) => !e.startsWith('settings:') || operatorSetting(e.slice('settings:'.length))), settings));
  const runtime = resolveEgress(entries.filter((e) => e.startsWith('settings:') && !operatorSetting(e.slice('settings:'.length))), settings);
  return runtime.filter((host) => !operator.has(host));
}

export interface EgressClientOptions {
  egress: readonly string[];
  /**
   * The entries of `egress` that came from URLs set at run time (see runtimeEgress): a host
   * matched only by these must pass the guard's address check. Default: none.
   */
  runtime?: readonly string[];
  /** The guard of run-time URLs (OUTBOUND_ALLOW_HOSTS); default one that allows no private host. */
  guard?: OutboundGuard;
  /** TLS and timeouts of checked connections (the alert receivers' extra CAs). */
  connect?: () => OutboundConnectOptions;
  /** Called for every refused request, so the host can audit it. */
  onDenied?: (url: URL) => void;
  signal?: AbortSignal;
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
  const operator = options.egress.filter((p) => !(options.runtime ?? []).includes(p));
  const guard = options.guard ?? new OutboundGuard();
  const send = (url: URL, init: RequestInit) => {
    const connect = options.connect?.() ?? {};
    if (egressAllows(operator, url)) return guard.fetchUnchecked(url, init, connect);
    return guard.fetch(url, init, connect).catch((err: unknown) => {
      if (err instanceof OutboundAddressError) options.onDenied?.(url);
      throw err;
    });
  };
  return {
    allows: (url) => egressAllows(options.egress, new URL(url)),
    async resolveAddress(host, port) {
      const url = new URL(`https://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${port}`);
      check(url);
      return guard.resolveAddress(url, !egressAllows(operator, url)).catch((err: unknown) => {
        if (err instanceof OutboundAddressError) options.onDenied?.(url);
        throw err;
      });
    },
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
