import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { PluginLogger } from 'switchboard/sdk';
import { SystemOneRequestBody } from 'switchboard/sdk/judge';
import { CHECKPOINT_NAMES, CheckpointMissingError, isCheckpointName, locateCheckpoint, type CheckpointName } from './checkpoints.js';
import { InferenceMetrics, METRICS_CONTENT_TYPE } from './inference-metrics.js';
import type { WorkerReply, WorkerRequest } from './inference-worker.js';
import { JudgeServerError, malformed, refused, tooLarge } from './judge-server-errors.js';
import { detectLanguage } from './language.js';

/** The most questions one request may ask. */
export const MAX_QUESTIONS = 8;
const MAX_BODY_BYTES = 1024 * 1024;

export interface JudgeServerOptions {
  checkpointsRoot: string;
  /** The one checkpoint served; other model names answer 422. null: route by the state's language. */
  pinned: CheckpointName | null;
  port: number;
  /** Loopback only: 127.0.0.1 or ::1. */
  host?: '127.0.0.1' | '::1';
  /** Where it logs (`switchboard judge-server` passes the gateway's logger: same format and masking). */
  logger: PluginLogger;
}

export interface RunningJudgeServer {
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Nesting of the state the server accepts: deeper would overflow the stack of JSON.stringify. */
export const MAX_STATE_DEPTH = 64;
/** Bytes of an oversized body read (and dropped) so the caller gets its 413 instead of a reset. */
const MAX_DISCARD_BYTES = 16 * MAX_BODY_BYTES;

/** How deeply a parsed JSON value nests (objects and arrays), counted without recursion. */
function nestingOf(value: unknown, stopAt: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > stopAt) return deepest;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The self-hosted judge: POST /v1/systemone answered by an ONNX sequence classifier per
 * question, one checkpoint resident at a time, inference in a single worker thread;
 * GET /health (200 only once a checkpoint is resident), GET /metrics.
 */
export async function startJudgeServer(options: JudgeServerOptions): Promise<RunningJudgeServer> {
  const log = ({ level, msg, ...fields }: { level: 'info' | 'error'; msg: string } & Record<string, unknown>) => options.logger[level](msg, fields);
  const metrics = new InferenceMetrics(CHECKPOINT_NAMES);

  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  // The worker says when its modules are loaded (id 0): terminating a thread still loading them
  // can bring the whole process down as it exits, so a stop waits for that first.
  let workerLoaded: () => void = () => {};
  const loadedModules = new Promise<void>((resolve) => (workerLoaded = resolve));
  const onReply = (reply: WorkerReply) => {
    if (reply.id === 0) return workerLoaded();
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.result);
    else waiter.reject(Object.assign(new Error(reply.error), { code: reply.code }));
  };
  let closing = false;
  const workerFailed = (err: Error) => {
    // A thread ending at close is no failure to report; what still waited on it is refused all the same.
    if (!closing) log({ level: 'error', msg: 'inference worker failed', err: err.message });
    for (const waiter of pending.values()) waiter.reject(err);
    pending.clear();
  };
  // Started once the port is bound: a port that is taken never starts (and terminates) a thread.
  let worker: Worker | undefined;
  let workerEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => (workerEnded = resolve));
  const startWorker = (): Worker => {
    const started = new Worker(new URL('./inference-worker.js', import.meta.url));
    started.on('message', onReply);
    started.on('error', workerFailed);
    started.on('exit', (code) => {
      workerEnded();
      workerLoaded();
      workerFailed(new Error(`inference worker exited with code ${code}`));
    });
    return started;
  };
  type Message = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;
  const call = (message: Message): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker!.postMessage({ ...message, id });
    });

  // One job at a time on the worker: a load never interleaves with an inference.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  };
  let loaded: CheckpointName | null = null;
  let loading: CheckpointName | null = null;
  const ensureLoaded = async (name: CheckpointName) => {
    if (loaded === name) return;
    const files = await locateCheckpoint(options.checkpointsRoot, name);
    loading = name;
    try {
      const previous = loaded;
      loaded = null;
      if (previous) metrics.setResident(previous, false);
      await call({ type: 'load', checkpoint: files });
      loaded = name;
      metrics.setResident(name, true);
      log({ level: 'info', msg: 'checkpoint resident', checkpoint: name });
    } finally {
      loading = null;
    }
  };

  async function answer(body: unknown) {
    // Checked before validation and stringify, which both recurse.
    if (nestingOf(body, MAX_STATE_DEPTH + 2) > MAX_STATE_DEPTH + 2) throw refused('state', `nested deeper than ${MAX_STATE_DEPTH} levels`);
    const parsed = SystemOneRequestBody.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw malformed(issue?.path.join('.') || 'body', issue?.message ?? 'invalid request');
    }
    const request = parsed.data;
    const questions = Object.entries(request.questions);
    if (questions.length > MAX_QUESTIONS) throw tooLarge(`${questions.length} questions in one request`, `${MAX_QUESTIONS} questions`);
    const stateText = typeof request.state === 'string' ? request.state : JSON.stringify(request.state);
    let name: CheckpointName;
    if (options.pinned) {
      if (request.model !== options.pinned) throw new JudgeServerError('judge_model_not_served', `model "${request.model}" is not served: this server is pinned to "${options.pinned}"`);
      name = options.pinned;
    } else {
      name = isCheckpointName(request.model) ? request.model : (await detectLanguage(stateText)) === 'en' ? 'english' : 'multilingual';
    }
    const started = process.hrtime.bigint();
    try {
      const result = (await serial(async () => {
        await ensureLoaded(name);
        return call({
          type: 'infer',
          state: stateText,
          questions: questions.map(([id, q]) => ({ id, text: typeof q.instructions === 'string' ? q.instructions : JSON.stringify(q.instructions) })),
        });
      })) as { checkpoint: CheckpointName; answers: Record<string, number>; input_tokens: number };
      metrics.observe(name, 'ok', Number(process.hrtime.bigint() - started) / 1e9);
      return {
        model: result.checkpoint,
        answers: Object.fromEntries(Object.entries(result.answers).map(([id, p]) => [id, { type: 'noul' as const, noul: p }])),
        usage: { input_tokens: result.input_tokens, output_tokens: 0 },
      };
    } catch (err) {
      metrics.observe(name, 'error', Number(process.hrtime.bigint() - started) / 1e9);
      if (err instanceof CheckpointMissingError) throw new JudgeServerError('judge_checkpoint_missing', err.message);
      throw err;
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!(err instanceof JudgeServerError)) log({ level: 'error', msg: 'request failed', err: (err as Error)?.message });
      const failure = err instanceof JudgeServerError ? err : new JudgeServerError('internal_error', 'internal error');
      send(res, failure.status, failure.body);
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/health') {
      if (loaded) return send(res, 200, { status: 'ok', loaded: [loaded], pinned: options.pinned });
      return send(res, 503, { status: loading ? 'loading' : 'empty', loaded: [], pinned: options.pinned });
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE });
      res.end(metrics.text());
      return;
    }
    if (url.pathname === '/v1/systemone') {
      if (req.method !== 'POST') throw new JudgeServerError('method_not_allowed', 'use POST');
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new JudgeServerError('json_body_required', 'the body must be application/json');
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw malformed('body', 'not valid JSON');
      }
      return send(res, 200, await answer(body));
    }
    throw new JudgeServerError('route_not_found', `no route for ${req.method ?? 'GET'} ${url.pathname}`);
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  worker = startWorker();
  const port = (server.address() as AddressInfo).port;
  // A pinned server loads its checkpoint at once; /health says when it is resident.
  if (options.pinned) {
    const pinned = options.pinned;
    void serial(() => ensureLoaded(pinned)).catch((err) => log({ level: 'error', msg: 'pinned checkpoint failed to load', checkpoint: pinned, err: (err as Error).message }));
  }
  log({ level: 'info', msg: 'judge server listening', host, port, pinned: options.pinned });
  return {
    url: `http://${host === '::1' ? '[::1]' : host}:${port}`,
    port,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // The thread is never terminated while native work runs in it: onnxruntime aborts the whole
      // process when a thread ends under a session being created or run. The job under way
      // finishes (no new one comes: the server is closed), the thread releases its session and
      // ends by itself; only a thread that does not within the budget is terminated.
      // A thread that had already ended is past all of it at once.
      const settle = <T>(work: Promise<T>, ms: number) => Promise.race([work.then(() => true, () => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), ms).unref())]);
      closing = true;
      const calm = (await settle(loadedModules, 10_000)) && (await settle(Promise.race([queue, ended]), 30_000));
      if (calm && (await settle(Promise.race([call({ type: 'shutdown' }), ended]), 10_000)) && (await settle(ended, 5_000))) return;
      await worker!.terminate();
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * The body as text. Over MAX_BODY_BYTES the rest is read and dropped (up to MAX_DISCARD_BYTES)
 * so the caller, still sending, gets its 413 instead of a reset connection.
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DISCARD_BYTES) req.destroy();
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) reject(tooLarge('body', `${MAX_BODY_BYTES} bytes`));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
