import type { Logger } from 'pino';
import { createLogger } from '../../../platform/logging/logger.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { Gauge, Histogram, Registry } from 'prom-client';
import { SystemOneRequestBody } from '../../../../core/sdk/judge/index.js';
import { CHECKPOINT_NAMES, CheckpointMissingError, isCheckpointName, locateCheckpoint, type CheckpointName } from './checkpoints.js';
import type { WorkerReply, WorkerRequest } from './inference-worker.js';
import { detectLanguage } from './language.js';
import { ErrorCatalogue, httpError } from '../../../platform/http/error-catalogue.js';
import { PLATFORM_HTTP_ERRORS } from '../../../platform/http/platform-http-errors.js';
import { WORKBENCH_HTTP_ERRORS } from '../http/workbench-http-errors.js';
import { workbenchErrors } from '../workbench-errors.js';
import { invalidInput, malformedInput, platformErrors } from '../../../platform/errors/platform-errors.js';

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
  /** The gateway's logger (same format and masking); default: JSON at info. */
  logger?: Logger;
}

export interface RunningJudgeServer {
  url: string;
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
  const logger = (options.logger ?? createLogger('info')).child({ component: 'judge-server' });
  const log = ({ level, msg, ...fields }: { level: 'info' | 'error'; msg: string } & Record<string, unknown>) => logger[level](fields, msg);
  const metrics = new Registry();
  const inference = new Histogram({
    name: 'selfhosted_inference_seconds',
    help: 'Time to answer one /v1/systemone request on the inference worker.',
    labelNames: ['checkpoint', 'outcome'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [metrics],
  });
  const resident = new Gauge({ name: 'selfhosted_checkpoint_resident', help: '1 for the checkpoint resident in memory, 0 for the others.', labelNames: ['checkpoint'], registers: [metrics] });
  for (const name of CHECKPOINT_NAMES) resident.set({ checkpoint: name }, 0);

  const worker = new Worker(new URL('./inference-worker.js', import.meta.url));
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  worker.on('message', (reply: WorkerReply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (reply.ok) waiter.resolve(reply.result);
    else waiter.reject(Object.assign(new Error(reply.error), { code: reply.code }));
  });
  const workerFailed = (err: Error) => {
    log({ level: 'error', msg: 'inference worker failed', err: err.message });
    for (const waiter of pending.values()) waiter.reject(err);
    pending.clear();
  };
  worker.on('error', workerFailed);
  worker.on('exit', (code) => workerFailed(new Error(`inference worker exited with code ${code}`)));
  type Message = WorkerRequest extends infer R ? (R extends WorkerRequest ? Omit<R, 'id'> : never) : never;
  const call = (message: Message): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
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
      if (previous) resident.set({ checkpoint: previous }, 0);
      await call({ type: 'load', checkpoint: files });
      loaded = name;
      resident.set({ checkpoint: name }, 1);
      log({ level: 'info', msg: 'checkpoint resident', checkpoint: name });
    } finally {
      loading = null;
    }
  };

  async function answer(body: unknown) {
    // Checked before validation and stringify, which both recurse.
    if (nestingOf(body, MAX_STATE_DEPTH + 2) > MAX_STATE_DEPTH + 2) throw invalidInput('state', `nested deeper than ${MAX_STATE_DEPTH} levels`);
    const parsed = SystemOneRequestBody.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw malformedInput(issue?.path.join('.') || 'body', issue?.message ?? 'invalid request');
    }
    const request = parsed.data;
    const questions = Object.entries(request.questions);
    if (questions.length > MAX_QUESTIONS) throw platformErrors.error('payload_too_large', { what: `${questions.length} questions in one request`, limit: `${MAX_QUESTIONS} questions` });
    const stateText = typeof request.state === 'string' ? request.state : JSON.stringify(request.state);
    let name: CheckpointName;
    if (options.pinned) {
      if (request.model !== options.pinned) throw workbenchErrors.error('judge_model_not_served', { model: request.model, pinned: options.pinned });
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
      inference.observe({ checkpoint: name, outcome: 'ok' }, Number(process.hrtime.bigint() - started) / 1e9);
      return {
        model: result.checkpoint,
        answers: Object.fromEntries(Object.entries(result.answers).map(([id, p]) => [id, { type: 'noul' as const, noul: p }])),
        usage: { input_tokens: result.input_tokens, output_tokens: 0 },
      };
    } catch (err) {
      inference.observe({ checkpoint: name, outcome: 'error' }, Number(process.hrtime.bigint() - started) / 1e9);
      if (err instanceof CheckpointMissingError) throw workbenchErrors.error('judge_checkpoint_missing', { reason: err.message });
      throw err;
    }
  }

  // The answers of the gateway's own codes: the platform's and the workbench's judge codes.
  const catalogue = new ErrorCatalogue([PLATFORM_HTTP_ERRORS, WORKBENCH_HTTP_ERRORS]);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const known = catalogue.toHttp(err);
      if (!known) log({ level: 'error', msg: 'request failed', err: (err as Error)?.message });
      const failure = known ?? httpError('internal_error');
      send(res, failure.status, { detail: failure.detail, code: failure.code });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/health') {
      if (loaded) return send(res, 200, { status: 'ok', loaded: [loaded], pinned: options.pinned });
      return send(res, 503, { status: loading ? 'loading' : 'empty', loaded: [], pinned: options.pinned });
    }
    if (req.method === 'GET' && url.pathname === '/metrics') {
      res.writeHead(200, { 'content-type': metrics.contentType });
      res.end(await metrics.metrics());
      return;
    }
    if (url.pathname === '/v1/systemone') {
      if (req.method !== 'POST') throw platformErrors.error('method_not_allowed', { allowed: 'POST' });
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw platformErrors.error('json_body_required');
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw malformedInput('body', 'not valid JSON');
      }
      return send(res, 200, await answer(body));
    }
    throw platformErrors.error('route_not_found', { method: req.method ?? 'GET', path: url.pathname });
  }

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // A pinned server loads its checkpoint at once; /health says when it is resident.
  if (options.pinned) {
    const pinned = options.pinned;
    void serial(() => ensureLoaded(pinned)).catch((err) => log({ level: 'error', msg: 'pinned checkpoint failed to load', checkpoint: pinned, err: (err as Error).message }));
  }
  log({ level: 'info', msg: 'judge server listening', host, port, pinned: options.pinned });
  return {
    url: `http://${host === '::1' ? '[::1]' : host}:${port}`,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      worker.removeAllListeners('exit');
      await worker.terminate();
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
      if (size > MAX_BODY_BYTES) reject(platformErrors.error('payload_too_large', { what: 'body', limit: `${MAX_BODY_BYTES} bytes` }));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}
