import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError } from '../http/client-errors.js';

/** An HTTP server for `app` bound to host:port; rejects when the port cannot be bound. */
export async function listenHttp(app: RequestListener, port: number, host: string): Promise<{ server: Server; address: AddressInfo }> {
  const server = createServer(app);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, address: server.address() as AddressInfo };
}

/** Runs every shutdown step in order, each even when one before it failed (logged). */
export async function runStopSteps(steps: ReadonlyArray<[string, () => Promise<void> | void]>, onError: (step: string, err: Error) => void): Promise<void> {
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      onError(name, err as Error);
    }
  }
}
