import { createRequire, syncBuiltinESMExports } from 'node:module';

/** The error a plugin running isolated gets when it reaches for the network or a process directly. */
export class IsolationRefusedError extends Error {
  readonly code = 'isolation_refused';
  constructor(what: string) {
    super(`${what} is refused to an isolated plugin: reach the network through ctx.http (the host's egress client)`);
    this.name = 'IsolationRefusedError';
  }
}

// What opens a socket, a server or a process; undici (global fetch) connects through net and tls too.
const GUARDED: Record<string, readonly string[]> = {
  net: ['connect', 'createConnection', 'createServer'],
  tls: ['connect', 'createServer'],
  http: ['request', 'get', 'createServer'],
  https: ['request', 'get', 'createServer'],
  http2: ['connect', 'createServer', 'createSecureServer'],
  dgram: ['createSocket'],
  child_process: ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'],
  worker_threads: ['Worker'],
  cluster: ['fork'],
};

/**
 * Closes the direct ways out of an isolate before the plugin's code loads: the functions that
 * open sockets, servers, processes or threads throw (ES module imports see the same, through
 * syncBuiltinESMExports), a raw Socket cannot connect, and global fetch and WebSocket throw.
 * The isolate's own channel to the host was opened before and is not touched.
 */
export function installNetworkGuard(): void {
  const require = createRequire(import.meta.url);
  for (const [name, members] of Object.entries(GUARDED)) {
    const mod = require(`node:${name}`) as Record<string, unknown>;
    for (const member of members) {
      if (!(member in mod)) continue;
      const refuse = function refused(): never {
        throw new IsolationRefusedError(`${name}.${member}`);
      };
      Object.defineProperty(mod, member, { value: refuse, writable: false, configurable: false, enumerable: true });
    }
  }
  const net = require('node:net') as typeof import('node:net');
  Object.defineProperty(net.Socket.prototype, 'connect', {
    value: function refused(): never {
      throw new IsolationRefusedError('net.Socket.connect');
    },
    writable: false,
    configurable: false,
  });
  for (const global of ['fetch', 'WebSocket', 'EventSource'] as const) {
    Object.defineProperty(globalThis, global, {
      value: function refused(): never {
        throw new IsolationRefusedError(global);
      },
      writable: false,
      configurable: false,
    });
  }
  syncBuiltinESMExports();
}
