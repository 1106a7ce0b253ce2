import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RpcMessage } from './rpc-peer.js';

const ISOLATE_MAIN = new URL('./isolate-main.js', import.meta.url);
// dist/core/kernel/isolation -> the package root (dist, node_modules: the host's code and the SDK)
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

export interface IsolateLaunch {
  mode: 'process' | 'worker';
  memoryMb: number;
  /**
   * Confine the file system (child processes; Node's permission model): read the host package
   * and `codeRoot`, read and write `dataDir` only; no addons, no child processes.
   */
  confine?: { codeRoot: string; dataDir: string };
}

/** How the isolate ended, in words for /plugins and the logs. */
export type ExitListener = (reason: string) => void;

/** A running isolate: a child process or a worker thread, seen as a message port. */
export interface IsolateProcess {
  readonly pid: number | undefined;
  /** The worker's thread id (worker mode). */
  readonly threadId: number | undefined;
  post(message: RpcMessage): void;
  onMessage(listener: (message: RpcMessage) => void): void;
  /** Called once, when it ends for any reason; `terminate`'s own reason wins. */
  onExit(listener: ExitListener): void;
  terminate(reason: string): void;
}

export function launchIsolate(launch: IsolateLaunch): IsolateProcess {
  return launch.mode === 'worker' ? launchWorker(launch) : launchChild(launch);
}

function exitOnce(listeners: ExitListener[]) {
  let done = false;
  return (reason: string) => {
    if (done) return;
    done = true;
    for (const l of listeners) l(reason);
  };
}

function launchChild(launch: IsolateLaunch): IsolateProcess {
  const execArgv = [`--max-old-space-size=${launch.memoryMb}`, '--disable-warning=ExperimentalWarning', '--disable-warning=SecurityWarning'];
  if (launch.confine) {
    // --allow-worker: the loader hooks run on an internal thread; the public Worker is closed by the network guard.
    execArgv.push('--experimental-permission', `--allow-fs-read=${PACKAGE_ROOT}`, `--allow-fs-read=${launch.confine.codeRoot}`, `--allow-fs-read=${launch.confine.dataDir}`, `--allow-fs-write=${launch.confine.dataDir}`, '--allow-worker');
  }
  const child = fork(fileURLToPath(ISOLATE_MAIN), [], {
    execArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    env: { NODE_ENV: process.env.NODE_ENV ?? 'production' },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
    process.stderr.write(chunk);
  });
  const listeners: ExitListener[] = [];
  const exited = exitOnce(listeners);
  let terminated: string | undefined;
  child.on('exit', (code, signal) => {
    // V8 says so before it aborts; a heap limit reached while a ping waited is still the heap limit.
    if (/heap out of memory|Reached heap limit/i.test(stderr)) return exited(`exceeded its memory limit (${launch.memoryMb} MB)`);
    if (terminated) return exited(terminated);
    const thrown = /^(?:Uncaught )?([A-Za-z]*Error(?: \[\w+\])?: .*)$/m.exec(stderr)?.[1];
    if (thrown) return exited(`uncaught exception: ${thrown}`);
    exited(`its process exited (${signal ? `signal ${signal}` : `code ${code}`})`);
  });
  child.on('error', (err) => {
    terminated ??= `its process failed: ${err.message}`;
    child.kill('SIGKILL');
  });
  return {
    pid: child.pid,
    threadId: undefined,
    post: (m) => {
      if (child.connected) child.send(m);
    },
    onMessage: (l) => child.on('message', (m) => l(m as RpcMessage)),
    onExit: (l) => listeners.push(l),
    terminate(reason) {
      terminated ??= reason;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      else exited(reason);
    },
  };
}

function launchWorker(launch: IsolateLaunch): IsolateProcess {
  const worker = new Worker(ISOLATE_MAIN, {
    resourceLimits: { maxOldGenerationSizeMb: launch.memoryMb },
    env: {},
    stdout: false,
    stderr: false,
  });
  const listeners: ExitListener[] = [];
  const exited = exitOnce(listeners);
  let terminated: string | undefined;
  let failure: Error | undefined;
  worker.on('error', (err) => {
    failure = err;
  });
  worker.on('exit', (code) => {
    if (terminated) return exited(terminated);
    if ((failure as { code?: string } | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return exited(`exceeded its memory limit (${launch.memoryMb} MB)`);
    if (failure) return exited(`uncaught exception: ${failure.name}: ${failure.message}`);
    exited(`its worker exited (code ${code})`);
  });
  return {
    pid: undefined,
    threadId: worker.threadId,
    post: (m) => worker.postMessage(m),
    onMessage: (l) => worker.on('message', l),
    onExit: (l) => listeners.push(l),
    terminate(reason) {
      terminated ??= reason;
      void worker.terminate();
    },
  };
}
