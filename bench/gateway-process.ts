// The gateway as its own process for the benchmarks (`node dist/host/main.js`): embedded
// default (SQLite, local storage), FAX_DISABLED, info-level logs (the default; the harness reads
// the port from the listening line), no practical rate limit, its state in a temp DATA_DIR removed
// when it stops.
import path from 'node:path';
import { removeDir, tempDir } from '../test/support/gateway.js';
import { startChildGateway, type ChildGateway } from '../test/support/child-gateway.js';
import { trackChild, trackDir } from './leftovers.js';
import { memoryOf, type ProcessMemory } from './process-memory.js';

export interface BenchGateway {
  url: string;
  pid: number;
  gateway: ChildGateway;
  memory(): ProcessMemory;
  /** SIGTERM (SIGKILL after 15 s), then removes its DATA_DIR. */
  stop(): Promise<void>;
}

export const BENCH_GATEWAY_ENV = {
  FAX_DISABLED: 'true',
  MAX_REQUESTS_PER_MINUTE: '100000000',
  INBOUND_LIST_RPM: '100000000',
  INBOUND_GET_RPM: '100000000',
};

export async function startBenchGateway(env: Record<string, string> = {}): Promise<BenchGateway> {
  const dataDir = tempDir('switchboard-bench-');
  const untrackDir = trackDir(dataDir);
  let gateway: ChildGateway;
  try {
    gateway = await startChildGateway({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), ...BENCH_GATEWAY_ENV, ...env });
  } catch (err) {
    removeDir(dataDir);
    untrackDir();
    throw err;
  }
  const untrackChild = trackChild(gateway.pid);
  return {
    url: gateway.url,
    pid: gateway.pid,
    gateway,
    memory: () => memoryOf(gateway.pid),
    async stop() {
      const timer = setTimeout(() => void gateway.kill('SIGKILL'), 15_000);
      await gateway.kill('SIGTERM');
      clearTimeout(timer);
      untrackChild();
      removeDir(dataDir);
      untrackDir();
    },
  };
}
