import { fork } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob, IndexerMessage } from './indexer/protocol.js';
import type { CensusParentMessage } from '../../../platform/llm/ipc-census.js';
import { nothingChanged } from './indexer/unchanged-check.js';

/**
 * The worker thread that supervises one indexer child process, so the gateway's event loop
 * never waits on indexing: it forks the child, hands it the job, relays its messages and turns
 * an exit without a result (a crash, a SIGKILL) into a failure with the reason. When the backend
 * reported its counts and the stat cache shows that nothing changed, the run ends here with no
 * child at all (kind `unchanged`).
 */
export interface WorkerInput {
  job: IndexJob;
  script: string;
  env: Record<string, string>;
  /** The backend's counts of the repository before the run, when it reports them: a run may then end without the child when nothing changed. */
  indexed?: { sources: number; vectors: number };
}

const { job, script, env, indexed } = workerData as WorkerInput;
const port = parentPort!;

const unchanged = indexed ? await nothingChanged(job, indexed).catch(() => undefined) : undefined;
if (unchanged) {
  port.postMessage({ type: 'progress', kind: 'unchanged', counts: unchanged } satisfies IndexerMessage);
  // Nothing was admitted: the census closes at once.
  if (job.census) port.postMessage({ type: 'census_closed' } satisfies IndexerMessage);
  port.postMessage({ type: 'done', counts: unchanged } satisfies IndexerMessage);
  port.close();
} else supervise();

function supervise(): void {
  const child = fork(script, [], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let settled = false;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
  });
  port.postMessage({ type: 'spawned', pid: child.pid });
  child.on('message', (message: IndexerMessage) => {
    if (message.type === 'done' || message.type === 'failed') settled = true;
    port.postMessage(message);
  });
  child.on('exit', (code, signal) => {
    if (!settled) {
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      const reason = signal ? `the indexer process was killed (${signal})` : `the indexer process exited with code ${code}`;
      port.postMessage({ type: 'failed', reason: tail ? `${reason}: ${tail}` : reason } satisfies IndexerMessage);
    }
    port.postMessage({ type: 'exited', code, signal });
    // Nothing is left to supervise: closing the port lets the thread end.
    port.close();
  });
  child.on('error', (err) => {
    if (!settled) port.postMessage({ type: 'failed', reason: `the indexer process could not start: ${err.message}` } satisfies IndexerMessage);
    settled = true;
  });
  port.on('message', (message: { type: 'stop' } | CensusParentMessage) => {
    // Census answers go through to the child; a dead child has nobody to tell.
    if (message.type === 'admitted' || message.type === 'admit_failed') {
      if (child.connected) child.send(message);
      return;
    }
    if (message.type === 'stop' && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 2000).unref();
    }
  });
  // The stop listener alone must not keep the thread alive (attaching it refs the port): once the
  // child has exited the worker ends, so the gateway sees 'exit' and IndexRuns.settled() resolves.
  port.unref();
  child.send(job);
}
