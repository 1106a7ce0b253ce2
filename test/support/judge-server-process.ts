import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT, until } from './gateway.js';
import { listeningPort } from './listening-port.js';

export interface JudgeServerProcess {
  url: string;
  port: number;
  pid: number;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * `switchboard judge-server` as its own process on a port it picks itself
 * (SELFHOSTED_HTTP_PORT=0) and reports in its "judge server listening" line: no other server
 * can be mistaken for it. A variable given as undefined is left unset.
 */
export async function startJudgeServerProcess(env: Record<string, string | undefined>): Promise<JudgeServerProcess> {
  const merged = { PATH: process.env.PATH ?? '/usr/bin:/bin', SELFHOSTED_HTTP_PORT: '0', ENV_FILE: '/nonexistent/.env', ...env };
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist/host/cli/run.js'), 'judge-server'], {
    env: Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // 'close', not 'exit': the output piped before the exit has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let port: number;
  try {
    port = await listeningPort(child, 'judge server listening', 20_000);
    await until(async () => (child.exitCode === null ? Boolean(await fetch(`http://127.0.0.1:${port}/metrics`)) : Promise.reject(new Error(`exited: ${out}`))), 20_000, 50);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`judge server did not start: ${(err as Error).message}\n${out}`);
  }
  return {
    url: `http://127.0.0.1:${port}`,
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
