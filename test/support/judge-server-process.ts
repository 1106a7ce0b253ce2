import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT, freePort, until } from './gateway.js';

export interface JudgeServerProcess {
  url: string;
  port: number;
  pid: number;
  output(): string;
  stop(): Promise<number | null>;
}

/** `switchboard judge-server` as its own process; ready when its port answers. */
export async function startJudgeServerProcess(env: Record<string, string>): Promise<JudgeServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist/host/cli/run.js'), 'judge-server'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SELFHOSTED_HTTP_PORT: String(port), ENV_FILE: '/nonexistent/.env', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (child.exitCode === null ? Boolean(await fetch(`${url}/metrics`)) : Promise.reject(new Error(`exited: ${out}`))), 20_000, 50);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`judge server did not start: ${(err as Error).message}\n${out}`);
  }
  return {
    url,
    port,
    pid: child.pid!,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
  };
}
