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
import { RpcPeer, type RpcMessage } from './rpc-peer.js';
import { describeInstance, type InstanceShape } from './instance-shape.js';

export interface IsolateStart extends IsolateContextInit {
  code: PluginCode;
  contracts: readonly string[];
  /** Close the direct ways out (third-party code); built-ins keep their own sockets (a PBX line). */
  guard: boolean;
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
        if (init.guard) installNetworkGuard();
        const definition = await loadEntry(init.code);
        context = createIsolateContext(init, peer);
        instance = servedAtCurrentContracts(await definition.start(context.ctx as never), init.contracts);
        for (const [kind, provider] of Object.entries(instance.providers)) peer.expose(`p:${kind}`, provider as object);
        return describeInstance(instance);
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

if (port) port.on('message', (m: RpcMessage) => peer.receive(m));
else {
  process.on('message', (m: RpcMessage) => peer.receive(m));
  // The host going away ends the isolate: an orphan must not keep a plugin running.
  process.on('disconnect', () => process.exit(0));
}
