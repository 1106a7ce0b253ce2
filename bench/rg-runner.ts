// ripgrep timed from a small process of its own. The code-search bench runs the gateway inside
// the bench's process; a child spawned from that process (fork) leaves every page of its heap
// copy-on-write, and the gateway's next request paid the faults: measured, the first grep after
// an rg run took 26 ms against 8 ms for the next one (after `sleep 0.04` spawned the same way
// too; after 40 ms of busy loop instead, 10 ms). A user's gateway forks no rg, so the bench
// spawns rg from here, and each rg run pays only a small process's spawn, as from a shell.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

const RUNNER = `
const { execFileSync } = require('node:child_process');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { command, args } = JSON.parse(line);
  const t = performance.now();
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
  } catch {
    // exit 1: no match
  }
  process.stdout.write(JSON.stringify(performance.now() - t) + '\\n');
});
`;

export interface CommandTimer {
  /** Milliseconds one run of the command took, spawn to exit. */
  time(command: string, args: string[]): Promise<number>;
  stop(): void;
}

export function commandTimer(): CommandTimer {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['-e', RUNNER], { stdio: ['pipe', 'pipe', 'pipe'] });
  const answers: Array<{ resolve: (ms: number) => void; reject: (err: Error) => void }> = [];
  createInterface({ input: child.stdout }).on('line', (line) => answers.shift()?.resolve(Number(JSON.parse(line))));
  child.stderr.on('data', (d) => process.stderr.write(d));
  child.on('exit', (code, signal) => {
    for (const a of answers.splice(0)) a.reject(new Error(`the command timer ended (${signal ?? `exit ${code}`})`));
  });
  return {
    time(command, args) {
      return new Promise((resolve, reject) => {
        if (child.exitCode !== null || child.signalCode !== null) return reject(new Error('the command timer has ended'));
        answers.push({ resolve, reject });
        child.stdin.write(`${JSON.stringify({ command, args })}\n`);
      });
    },
    stop() {
      child.kill();
    },
  };
}
