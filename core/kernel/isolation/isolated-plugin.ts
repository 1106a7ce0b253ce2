import { mkdirSync } from 'node:fs';
import type { PluginContext, PluginInstance } from '../../sdk/plugin.js';
import { NotAcceptedError } from '../../sdk/errors.js';
import type { HealthResult } from '../../sdk/health.js';
import type { PluginCode } from '../entry-loader.js';
import { TimeoutError, withTimeout } from '../generation.js';
import type { CrossingResponse, IsolateContextInit } from './isolate-context.js';
import { ISOLATE_ERROR_CLASSES } from './isolate-errors.js';
import type { IsolateStart } from './isolate-main.js';
import { launchIsolate, type IsolateProcess } from './isolate-process.js';
import type { InstanceShape } from './instance-shape.js';
import type { IsolationLimits } from './isolation-mode.js';
import { PluginCrashedError } from './plugin-crashed.js';
import { RpcPeer } from './rpc-peer.js';

export interface IsolatedStartRequest extends IsolateContextInit {
  mode: 'process' | 'worker';
  code: PluginCode;
  contracts: readonly string[];
  limits: IsolationLimits;
  startMs: number;
  stopMs: number;
  /** The host-side context: its logger, egress client, metrics and events serve the isolate's calls. */
  hostContext: PluginContext;
  /** The isolate stopped on its own or over a limit (not by stop): the generation has failed. */
  onCrash: (reason: string) => void;
  /** The isolate parses the settings with the plugin's own schema (see IsolateStart). */
  parseSettings?: boolean;
}

export interface IsolatedPlugin {
  instance: PluginInstance;
  readonly mode: 'process' | 'worker';
  readonly pid: number | undefined;
  readonly threadId: number | undefined;
  /** Runs the plugin's stop under the stop deadline, then ends the isolate. */
  stop(reason: string): Promise<void>;
  /** Ends the isolate now. */
  terminate(reason: string): void;
  /** The isolate's own memory use (process.memoryUsage() inside it). */
  memory(): Promise<NodeJS.MemoryUsage>;
}

/**
 * Starts a plugin in an isolate and serves it to the host as an ordinary PluginInstance whose
 * providers are proxies built from the methods the isolate reports. The host enforces the
 * limits: a call over its deadline or an isolate that stops answering pings is terminated; a
 * call beyond the concurrency cap is refused before it reaches the plugin; an isolate that ends
 * on its own fails every call in flight with PluginCrashedError and reports the reason.
 */
export async function startIsolatedPlugin(request: IsolatedStartRequest): Promise<IsolatedPlugin> {
  const { limits, pluginId } = request;
  mkdirSync(request.dataDir, { recursive: true, mode: 0o700 });
  const isolate: IsolateProcess = launchIsolate({
    mode: request.mode,
    memoryMb: limits.memoryMb,
    ...(request.code.builtin ? {} : { confine: { codeRoot: request.code.root, dataDir: request.dataDir } }),
  });
  const peer = new RpcPeer((m) => isolate.post(m), { ctx: hostSide(request.hostContext) }, ISOLATE_ERROR_CLASSES);
  isolate.onMessage((m) => peer.receive(m));
  let started = false;
  let stopping = false;
  let exitReason: string | undefined;
  const exited = new Promise<string>((resolve) =>
    isolate.onExit((reason) => {
      exitReason = reason;
      clearInterval(heartbeat);
      peer.close(new PluginCrashedError(pluginId, reason));
      if (started && !stopping) request.onCrash(reason);
      resolve(reason);
    }),
  );
  // A busy loop never answers: terminate when a ping stays unanswered past the limit.
  let lastPong = Date.now();
  let pinging = false;
  const beatMs = Math.max(10, Math.floor(limits.unresponsiveMs / 4));
  let lastBeat = Date.now();
  const heartbeat = setInterval(() => {
    const now = Date.now();
    // This process's own loop was held (a long synchronous stretch here): the pong may be queued behind it.
    if (now - lastBeat > 2 * beatMs) lastPong = now;
    lastBeat = now;
    if (!started) return lastPong = Date.now(); // loading the plugin is the start deadline's business
    if (Date.now() - lastPong > limits.unresponsiveMs) return isolate.terminate(`its event loop was blocked for more than ${limits.unresponsiveMs} ms`);
    if (pinging) return;
    pinging = true;
    peer.call('isolate', 'ping', []).then(
      () => {
        lastPong = Date.now();
        pinging = false;
      },
      () => {},
    );
  }, beatMs);
  heartbeat.unref();

  const init: IsolateStart = {
    pluginId,
    generation: request.generation,
    settings: request.settings,
    dataDir: request.dataDir,
    egress: request.egress,
    code: request.code,
    contracts: request.contracts,
    guard: !request.code.builtin,
    ...(request.parseSettings ? { parseSettings: true } : {}),
  };
  let shape: InstanceShape;
  try {
    shape = (await Promise.race([withTimeout(peer.call('isolate', 'start', [init]), request.startMs, `start of ${pluginId}`), exited.then((reason) => Promise.reject(new Error(`plugin isolate ended during start: ${reason}`)))])) as InstanceShape;
  } catch (err) {
    stopping = true;
    isolate.terminate(err instanceof TimeoutError ? err.message : 'start failed');
    throw err;
  }
  started = true;

  let inFlight = 0;
  const call = async (target: string, method: string, args: unknown[]) => {
    if (exitReason) throw new PluginCrashedError(pluginId, exitReason);
    if (inFlight >= limits.maxConcurrentCalls) throw new NotAcceptedError(`plugin "${pluginId}" has ${inFlight} calls in flight (its limit); try again shortly`, 1000);
    inFlight++;
    const deadline = setTimeout(() => isolate.terminate(`a call of ${target.slice(2)}.${method} took longer than ${limits.callMs} ms`), limits.callMs);
    deadline.unref();
    try {
      return await peer.call(target, method, args);
    } finally {
      clearTimeout(deadline);
      inFlight--;
    }
  };
  const providers: Record<string, Record<string, unknown>> = {};
  for (const [kind, provider] of Object.entries(shape.providers)) {
    const proxy: Record<string, unknown> = { ...provider.data };
    for (const method of provider.methods) proxy[method] = (...args: unknown[]) => call(`p:${kind}`, method, args);
    providers[kind] = proxy;
  }
  const instance: PluginInstance = {
    providers,
    ...(shape.health ? { health: async () => (await call('isolate', 'health', [])) as HealthResult } : {}),
  };
  return {
    instance,
    mode: request.mode,
    pid: isolate.pid,
    threadId: isolate.threadId,
    async stop(reason) {
      stopping = true;
      try {
        if (!exitReason) await withTimeout(peer.call('isolate', 'stop', [reason]), request.stopMs, `stop of ${pluginId}`);
      } finally {
        isolate.terminate(`stopped: ${reason}`);
        await exited;
      }
    },
    terminate(reason) {
      stopping = true;
      isolate.terminate(reason);
    },
    memory: async () => (await peer.call('isolate', 'memory', [])) as NodeJS.MemoryUsage,
  };
}

/** The host's half of the isolate's context: what its logger, egress client, metrics and events call. */
function hostSide(ctx: PluginContext) {
  return {
    log: (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown>) => ctx.logger[level]?.(String(msg), fields),
    async fetch(url: string, init: Record<string, unknown>, signal: AbortSignal): Promise<CrossingResponse> {
      const response = await ctx.http.fetch(url, { ...init, signal } as never);
      const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
      return { status: response.status, statusText: response.statusText, headers: [...response.headers], body };
    },
    resolveAddress: (hostname: string, port: number) => ctx.http.resolveAddress!(String(hostname), Number(port)),
    count: (name: string, help: string, labelNames: string[], labels: Record<string, string>, value: number) => ctx.metrics.counter(name, help, labelNames).inc(labels, value),
    observe: (name: string, help: string, labelNames: string[], buckets: number[] | undefined, labels: Record<string, string>, value: number) => ctx.metrics.histogram(name, help, labelNames, buckets).observe(labels, value),
    emit: (topic: string, payload: unknown) => ctx.events.emit(String(topic), payload),
    store: (op: 'put' | 'get' | 'delete', key: string, data?: Buffer) => (op === 'put' ? ctx.storage.put(String(key), Buffer.from(data ?? [])) : op === 'get' ? ctx.storage.get(String(key)) : ctx.storage.delete(String(key))),
  };
}
