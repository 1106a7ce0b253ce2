import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, until } from './gateway.js';
import { listeningPort } from './listening-port.js';

export interface ChildGateway {
  url: string;
  pid: number;
  output: () => string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** Peak resident memory of the process so far, in bytes (VmHWM). */
  peakRss(): number;
  /** Settles when the process ends, with its exit code (null when a signal ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * The gateway as its own process (`node dist/host/main.js`), for crash and memory tests. Without
 * `port` it listens on port 0 and the port comes from its "switchboard listening" line (its
 * PUBLIC_API_URL then defaults to that port); a restart on the same port passes `port`. `root` is
 * the checkout whose build runs (a fresh clone's, say); this one by default.
 */
export async function startChildGateway(env: Record<string, string>, port?: number, root = ROOT): Promise<ChildGateway> {
  const child: ChildProcess = spawn(process.execPath, [path.join(root, 'dist/host/main.js')], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOST: '127.0.0.1',
      PORT: String(port ?? 0),
      ...(port ? { PUBLIC_API_URL: `http://127.0.0.1:${port}` } : {}),
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost,::1',
      ...env,
      // The port line is an info line.
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let url = '';
  try {
    // Generous: on a loaded machine a cold start (migrations, plugins) can take tens of seconds.
    const bound = await listeningPort(child, 'switchboard listening', 60_000);
    url = `http://127.0.0.1:${bound}`;
    await until(async () => (child.exitCode === null ? (await fetch(`${url}/health`)).ok : Promise.reject(new Error(`exited: ${out}`))), 60_000, 100);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`gateway did not start: ${(err as Error).message}\n${out}`);
  }
  return {
    url,
    pid: child.pid!,
    output: () => out,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    peakRss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
      return kb * 1024;
    },
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
