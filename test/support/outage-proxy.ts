import net from 'node:net';

export interface OutageProxy {
  /** The loopback port the proxy listens on (the same after `up()`). */
  port: number;
  /** The service goes away: every connection is cut and the port refuses new ones. */
  down(): Promise<void>;
  /** The service comes back on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a loopback port in front of a real service (PostgreSQL, an S3 server), so a test
 * can take the service away from a gateway and bring it back without stopping the service itself,
 * which other test files share.
 */
export async function startOutageProxy(target: { host: string; port: number }): Promise<OutageProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => socket.destroy());
          socket.on('close', () => {
            sockets.delete(socket);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve((s.address() as net.AddressInfo).port));
      server = s;
    });
  const port = await listen(0);
  const down = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    down,
    async up() {
      if (!server) await listen(port);
    },
    close: down,
  };
}
