import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

const LIVENESS_BODY = '{"status":"ok"}';

/**
 * The HTTP server `npm start` binds before it builds the gateway, so the port is taken and
 * liveness answers while the modules load. Until `open(app)`: GET and HEAD /health answer 200
 * `{"status":"ok"}` (the process is up; readiness is /health/ready, which waits); every other
 * request waits, its body unread, and is handed to the app in arrival order once it opens.
 * After `open` every request, /health included, goes to the app.
 */
export class EarlyServer {
  private app?: RequestListener;
  private waiting: Array<[IncomingMessage, ServerResponse]> = [];

  private constructor(
    readonly server: Server,
    readonly address: AddressInfo,
  ) {}

  /** Binds host:port; rejects when the port cannot be bound. */
  static async listen(port: number, host: string): Promise<EarlyServer> {
    let early: EarlyServer | undefined;
    const server = createServer((req, res) => early!.handle(req, res));
    server.on('clientError', answerClientErrorWhenLoaded);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    early = new EarlyServer(server, server.address() as AddressInfo);
    return early;
  }

  /** How many requests wait for the app (for tests and logs). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  get opened(): boolean {
    return this.app !== undefined;
  }

  /** From now on `app` answers every request; the waiting ones first, in arrival order. */
  open(app: RequestListener): void {
    if (this.app) throw new Error('EarlyServer.open called twice');
    this.app = app;
    const waiting = this.waiting;
    this.waiting = [];
    for (const [req, res] of waiting) if (!req.destroyed) app(req, res);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    if (this.app) return void this.app(req, res);
    if ((req.method === 'GET' || req.method === 'HEAD') && isHealth(req.url)) {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(LIVENESS_BODY) });
      res.end(req.method === 'HEAD' ? undefined : LIVENESS_BODY);
      return;
    }
    this.waiting.push([req, res]);
  }
}

let clientErrors: Promise<typeof import('./client-errors.js')> | undefined;

/**
 * The API's answer to a request the parser refused, its module loaded on first use: the error
 * catalogue pulls in the platform's errors and zod, which the port must not wait for.
 */
function answerClientErrorWhenLoaded(err: Error & { code?: string }, socket: Duplex): void {
  clientErrors ??= import('./client-errors.js');
  void clientErrors.then(({ answerClientError }) => answerClientError(err, socket));
}

function isHealth(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf('?');
  return (q === -1 ? url : url.slice(0, q)) === '/health';
}
