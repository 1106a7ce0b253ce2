import type { z } from 'zod';
import type { DependencyContainer } from 'tsyringe';
import type { ProviderMap } from './contracts/index.js';
import type { HealthResult } from './health.js';

/** The structured logger a plugin gets; secrets of its settings are masked in every line. */
export interface PluginLogger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface EgressRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Uint8Array | FormData | URLSearchParams;
  /** Abort after this long (default 30 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Redirects are followed only to hosts in `egress`, at most this many (default 5). */
  maxRedirects?: number;
  /**
   * Headers that carry credentials besides Authorization, Proxy-Authorization and Cookie
   * (an API-key header, say): all of them are dropped when a redirect leaves the origin.
   */
  credentialHeaders?: string[];
}

/** An HTTP client that only reaches the hosts of the manifest's `egress` list, redirects included. */
export interface EgressHttpClient {
  fetch(url: string | URL, init?: EgressRequestInit): Promise<Response>;
  /** True when the URL's host is in the egress list. */
  allows(url: string | URL): boolean;
  /**
   * For a connection that is not HTTP (SMTP, say): the address to connect to for `host` and
   * `port`, after the same checks as fetch (the egress list, and the outbound guard for a host
   * set at run time). Throws EgressDeniedError when refused. Connect to the answer, naming
   * `host` for TLS. Since host 0.1 with the inbound-sink kind; absent on older hosts.
   */
  resolveAddress?(host: string, port: number): Promise<{ address: string; family: number }>;
}

export interface CounterHandle {
  inc(labels?: Record<string, string>, value?: number): void;
}
export interface HistogramHandle {
  observe(labels: Record<string, string>, value: number): void;
}

/** Prometheus metrics, namespaced by the host as `switchboard_plugin_<name>` with a plugin label. */
export interface PluginMetrics {
  counter(name: string, help: string, labelNames?: string[]): CounterHandle;
  histogram(name: string, help: string, labelNames?: string[], buckets?: number[]): HistogramHandle;
}

export interface PluginEvents {
  /** Tells the host something happened out of band (a fax result over AMI, say). */
  emit(topic: string, payload: unknown): void;
}

/**
 * Small objects a plugin keeps where every gateway instance of a cluster reads them: under
 * `plugins/<pluginId>/` of the gateway's artifact storage (STORAGE_BACKEND; S3 for a cluster).
 * Keys are slash-separated segments of [A-Za-z0-9._-]. Writes are whole-object and atomic; no
 * locking, so one writer per key. Since host 0.1 (SDK `PLUGIN_STORE_VERSION` 1).
 */
export interface PluginStore {
  put(key: string, data: Buffer | string): Promise<void>;
  /** The object's bytes; null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** True when something was removed. */
  delete(key: string): Promise<boolean>;
}

/** Version of `PluginContext.storage`; bumped when the store's members change. */
export const PLUGIN_STORE_VERSION = 1;

/** What a plugin gets at start: everything it may touch. */
export interface PluginContext<S = Record<string, unknown>> {
  readonly pluginId: string;
  /** Generation number: each reload builds a new one. */
  readonly generation: number;
  /** Validated settings of this generation. */
  readonly settings: S;
  readonly logger: PluginLogger;
  readonly http: EgressHttpClient;
  readonly metrics: PluginMetrics;
  readonly events: PluginEvents;
  /** The host's data directory; plugins keep their files under it. */
  readonly dataDir: string;
  /** State every instance of a cluster sees (the host's artifact storage); dataDir is this machine's only. */
  readonly storage: PluginStore;
  /** This generation's own tsyringe child container; disposed with the generation. */
  readonly container: DependencyContainer;
  /** Registers cleanup that the host runs when the generation stops. */
  onDispose(disposer: () => void | Promise<void>): void;
  /** Aborted when the generation stops; pass it to long work. */
  readonly signal: AbortSignal;
}

/** A started plugin: the providers it serves, its health check and how to stop it. */
export interface PluginInstance {
  providers: Partial<ProviderMap>;
  health?(): HealthResult | Promise<HealthResult>;
  stop?(reason: string): void | Promise<void>;
}

export interface PluginDefinition<S extends z.ZodObject = z.ZodObject> {
  /** Settings schema: a zod object; mark secret fields with `secret()`. */
  settings?: S;
  /** Environment variables that fill settings fields: `{ apiKey: 'PROVIDERA_API_KEY' }`. */
  env?: Partial<Record<keyof z.infer<S> & string, string>>;
  /**
   * Builds one generation. Throw NotReadyError to be retried with backoff, ConfigError or
   * AuthError to wait for new settings.
   */
  start(ctx: PluginContext<z.infer<S>>): PluginInstance | Promise<PluginInstance>;
}

const PLUGIN_BRAND = Symbol.for('switchboard.plugin');

/** Declares a plugin. The module named by a manifest's `entry` exports it as default. */
export function definePlugin<S extends z.ZodObject>(definition: PluginDefinition<S>): PluginDefinition<S> {
  if (typeof definition?.start !== 'function') throw new TypeError('definePlugin: start(ctx) is required');
  Object.defineProperty(definition, PLUGIN_BRAND, { value: true });
  return definition;
}

export function isPluginDefinition(value: unknown): value is PluginDefinition {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLUGIN_BRAND] === true;
}

/** Injection tokens registered in each generation's container; use with `@inject(Tokens.X)`. */
export const Tokens = {
  Context: 'switchboard.PluginContext',
  Settings: 'switchboard.PluginSettings',
  Logger: 'switchboard.PluginLogger',
  Http: 'switchboard.EgressHttpClient',
} as const;
