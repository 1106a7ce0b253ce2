// The program an isolated plugin runs in: a child process (fork) or a worker thread. It loads
// the plugin's entry with the host's loader, starts it with a context whose host-side parts are
// calls over the channel, and serves the providers' methods to the host. Nothing here is the
// plugin's: a plugin's code is the same in every isolation mode.
import { parentPort } from 'node:worker_threads';
import type { PluginInstance } from '../../sdk/plugin.js';
import { servedAtCurrentContracts } from '../contract-adapters.js';
import { loadEntry, type PluginCode } from '../entry-loader.js';
import { createIsolateContext, type IsolateContextInit } from './isolate-context.js';
import { ISOLATE_ERROR_CLASSES } from './isolate-errors.js';
import { installNetworkGuard } from './network-guard.js';
import { installFileGuard } from './file-guard.js';
import { PACKAGE_ROOT } from './isolate-process.js';
import { RpcPeer, type RpcMessage } from './rpc-peer.js';
import { describeInstance, type InstanceShape } from './instance-shape.js';
import { describeDefinition, type EntryDescription } from './entry-description.js';
import { ConfigError } from '../../sdk/errors.js';
import type { PluginDefinition } from '../../sdk/plugin.js';

export interface IsolateStart extends IsolateContextInit {
  code: PluginCode;
  contracts: readonly string[];
  /** Close the direct ways out (third-party code); built-ins keep their own sockets (a PBX line). */
  guard: boolean;
  /**
   * The gateway checked the settings against its stand-in of the schema (it never imported the
   * entry): parse them with the plugin's own schema here, refinements and transforms included.
   */
  parseSettings?: boolean;
}

const port = parentPort;
const post: (message: RpcMessage) => void = port ? (m) => port.postMessage(m) : (m) => void process.send!(m);

let instance: PluginInstance | undefined;
let context: ReturnType<typeof createIsolateContext> | undefined;

const peer: RpcPeer = new RpcPeer(
  post,
  {
    isolate: {
      async start(init: IsolateStart): Promise<InstanceShape> {
        if (init.guard) closeTheWaysOut(init.code, init.dataDir);
        const definition = await loadEntry(init.code);
        if (init.parseSettings && definition.settings) init = { ...init, settings: parsedSettings(definition, init.settings) };
        context = createIsolateContext(init, peer);
        instance = servedAtCurrentContracts(await definition.start(context.ctx as never), init.contracts);
        for (const [kind, provider] of Object.entries(instance.providers)) peer.expose(`p:${kind}`, provider as object);
        return describeInstance(instance);
      },
      /** Loads the entry only to say what the gateway needs of it; the isolate is ended after. */
      async describe(code: PluginCode, guard: boolean, dataDir: string): Promise<EntryDescription> {
        if (guard) closeTheWaysOut(code, dataDir);
        return describeDefinition(await loadEntry(code));
      },
      ping: () => true,
      health: () => instance?.health?.(),
      async stop(reason: string) {
        try {
          await instance?.stop?.(reason);
        } finally {
          await context?.dispose();
        }
      },
      memory: () => process.memoryUsage(),
    },
  },
  ISOLATE_ERROR_CLASSES,
);

/**
 * Before third-party code loads: no sockets or processes; in a worker, which Node's permission
 * model does not confine, no files outside the plugin's folder (read) and data folder (write).
 */
function closeTheWaysOut(code: PluginCode, dataDir: string): void {
  installNetworkGuard();
  if (port) installFileGuard({ read: [PACKAGE_ROOT, code.root], write: [dataDir] });
}

function parsedSettings(definition: PluginDefinition, settings: Record<string, unknown>): Record<string, unknown> {
  const parsed = definition.settings!.safeParse(settings);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw new ConfigError(`setting ${field || '(settings)'}: ${issue.message}`, field || undefined);
}

if (port) port.on('message', (m: RpcMessage) => peer.receive(m));
else {
  process.on('message', (m: RpcMessage) => peer.receive(m));
  // The host going away ends the isolate: an orphan must not keep a plugin running.
  process.on('disconnect', () => process.exit(0));
}
