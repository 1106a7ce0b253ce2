import { mkdirSync } from 'node:fs';
import type { PluginCode } from '../entry-loader.js';
import { withTimeout } from '../generation.js';
import type { EntryDescription } from './entry-description.js';
import { ISOLATE_ERROR_CLASSES } from './isolate-errors.js';
import { launchIsolate } from './isolate-process.js';
import { RpcPeer } from './rpc-peer.js';

export interface ProbeRequest {
  pluginId: string;
  mode: 'process' | 'worker';
  code: PluginCode;
  /** The plugin's own data folder: the only place its code may write, here as when it runs. */
  dataDir: string;
  memoryMb: number;
  deadlineMs: number;
}

/**
 * Reads what the gateway needs of an isolated plugin's entry (settings and environment map) in a
 * throwaway isolate under the same confinement as its runs, so the entry's top-level code never
 * runs in the gateway: a busy loop there meets the deadline, an exit or a throw ends only the probe.
 */
export async function probeEntry(request: ProbeRequest): Promise<EntryDescription> {
  mkdirSync(request.dataDir, { recursive: true, mode: 0o700 });
  const isolate = launchIsolate({ mode: request.mode, memoryMb: request.memoryMb, confine: { codeRoot: request.code.root, dataDir: request.dataDir } });
  const peer = new RpcPeer((m) => isolate.post(m), {}, ISOLATE_ERROR_CLASSES);
  isolate.onMessage((m) => peer.receive(m));
  const ended = new Promise<never>((_, reject) => isolate.onExit((reason) => reject(new Error(`loading plugin "${request.pluginId}" ended its isolate: ${reason}`))));
  ended.catch(() => {});
  try {
    const describing = withTimeout(peer.call('isolate', 'describe', [request.code, true, request.dataDir]), request.deadlineMs, `loading of ${request.pluginId}`);
    return (await Promise.race([describing, ended])) as EntryDescription;
  } finally {
    isolate.terminate('described');
    peer.close(new Error('probe finished'));
  }
}
