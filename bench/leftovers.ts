// Last-resort cleanup for the benchmarks: child processes and temp directories registered here
// are killed and removed when the bench process exits by any path (an error thrown past the
// try/finally blocks, Ctrl-C), so a failed run leaves no gateway listening and no temp files.
// The normal path still stops each child gracefully and removes its directory itself.
import { rmSync } from 'node:fs';

const pids = new Set<number>();
const dirs = new Set<string>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', () => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
}

export function trackChild(pid: number): () => void {
  install();
  pids.add(pid);
  return () => void pids.delete(pid);
}

export function trackDir(dir: string): () => void {
  install();
  dirs.add(dir);
  return () => void dirs.delete(dir);
}
