import 'reflect-metadata';
import { container as rootContainer } from 'tsyringe';
import { type EgressRequestInit, type PluginContext, type PluginLogger } from '../../sdk/plugin.js';
import { egressAllows } from '../egress.js';
import { generationLifetime, registerContextTokens } from '../plugin-context.js';
import type { RpcPeer } from './rpc-peer.js';

/** What the host tells an isolate about the generation it runs. */
export interface IsolateContextInit {
  pluginId: string;
  generation: number;
  settings: Record<string, unknown>;
  /** The plugin's own data folder (the only place it may write, in a child process). */
  dataDir: string;
  egress: readonly string[];
}

/** The response of a fetch as it crosses back from the host's egress client. */
export interface CrossingResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Buffer | null;
}

/**
 * The plugin's context inside an isolate: the same shape as in the host, its logger, egress
 * client, metrics and events calls to the host's own (which mask secrets, enforce egress and
 * the outbound guard, and label metrics), its storage the host's; its container, disposers and signal local.
 */
export function createIsolateContext(init: IsolateContextInit, host: RpcPeer): { ctx: PluginContext; dispose(): Promise<void> } {
  const container = rootContainer.createChildContainer();
  const lifetime = generationLifetime(container, init.pluginId);
  const log = (level: keyof PluginLogger) => (msg: string, fields?: Record<string, unknown>) => host.notify('ctx', 'log', [level, msg, fields ?? {}]);
  const logger: PluginLogger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
  const http = {
    allows: (url: string | URL) => egressAllows(init.egress, new URL(url)),
    resolveAddress: async (hostname: string, port: number) => (await host.call('ctx', 'resolveAddress', [hostname, port])) as { address: string; family: number },
    async fetch(url: string | URL, options: EgressRequestInit = {}): Promise<Response> {
      const { signal, body, ...rest } = options;
      const crossing: Record<string, unknown> = { ...rest };
      if (body instanceof FormData || body instanceof URLSearchParams) {
        // Neither clones: send the bytes and the content type they encode to.
        const request = new Request('http://isolate.invalid/', { method: 'POST', body });
        crossing.body = Buffer.from(await request.arrayBuffer());
        crossing.headers = { 'content-type': request.headers.get('content-type') ?? '', ...options.headers };
      } else if (body !== undefined) crossing.body = body;
      const answer = (await host.call('ctx', 'fetch', [String(url), crossing, signal ?? lifetime.signal])) as CrossingResponse;
      const nullBody = answer.status === 204 || answer.status === 304 || (answer.status >= 100 && answer.status < 200);
      return new Response(nullBody || !answer.body ? null : new Uint8Array(answer.body), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
    },
  };
  const ctx: PluginContext = {
    pluginId: init.pluginId,
    generation: init.generation,
    settings: Object.freeze({ ...init.settings }),
    logger,
    http,
    metrics: {
      counter: (name, help, labelNames = []) => ({ inc: (labels = {}, value = 1) => host.notify('ctx', 'count', [name, help, labelNames, labels, value]) }),
      histogram: (name, help, labelNames = [], buckets) => ({ observe: (labels, value) => host.notify('ctx', 'observe', [name, help, labelNames, buckets, labels, value]) }),
    },
    events: { emit: (topic, payload) => host.notify('ctx', 'emit', [topic, payload]) },
    dataDir: init.dataDir,
    storage: {
      put: async (key, data) => void (await host.call('ctx', 'store', ['put', key, Buffer.isBuffer(data) ? data : Buffer.from(data)])),
      get: async (key) => {
        const bytes = (await host.call('ctx', 'store', ['get', key])) as Uint8Array | null;
        return bytes ? Buffer.from(bytes) : null;
      },
      delete: async (key) => (await host.call('ctx', 'store', ['delete', key])) as boolean,
    },
    container,
    onDispose: lifetime.onDispose,
    signal: lifetime.signal,
  };
  registerContextTokens(ctx);
  return {
    ctx,
    // A disposer's failure is the plugin's to log; the isolate still stops.
    dispose: () => lifetime.dispose().catch(() => {}),
  };
}
