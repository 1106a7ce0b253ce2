import type { ChildProcess } from 'node:child_process';

/**
 * The port a child process reports in its JSON log line `msg` (`{"msg": ..., "port": N}` on
 * stdout): the child listens on port 0 and says where, so no other server can answer for it.
 */
export function listeningPort(child: ChildProcess, msg: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (fn: () => void) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      fn();
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        let parsed: { msg?: unknown; port?: unknown };
        try {
          parsed = JSON.parse(line);
        } catch {
          continue;
        }
        if (parsed.msg === msg && typeof parsed.port === 'number') return done(() => resolve(parsed.port as number));
      }
    };
    const onExit = (code: number | null) => done(() => reject(new Error(`exited with ${code} before "${msg}"`)));
    const timer = setTimeout(() => done(() => reject(new Error(`no "${msg}" line within ${timeoutMs} ms`))), timeoutMs);
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}
