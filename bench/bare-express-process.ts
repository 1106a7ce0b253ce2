// Starts bench/bare-express.ts (compiled) as a child process and stops it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../test/support/gateway.js';
import { trackChild } from './leftovers.js';
import { memoryOf, type ProcessMemory } from './process-memory.js';

export interface BareExpress {
  url: string;
  pid: number;
  memory(): ProcessMemory;
  stop(): Promise<void>;
}

/** `body`: the JSON text its /fax routes answer with. */
export async function startBareExpress(body: string): Promise<BareExpress> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/bench/bare-express.js')], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '0', BARE_BODY: body },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const untrack = trackChild(child.pid!);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (untrack(), resolve())));
  let out = '';
  child.stderr!.on('data', (d) => (out += d));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const line = /^\{"port":(\d+)\}\n/.exec(out);
      if (line) resolve(Number(line[1]));
    });
    child.once('exit', (code) => reject(new Error(`bare express exited (${code}) before listening: ${out}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    memory: () => memoryOf(child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
