import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { Duplex, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

/**
 * A fetch that hands each request to this gateway's own express app over an in-memory
 * connection: the MCP tools call the API without a socket address, so no Host guard, proxy or
 * listen address (`::`, a container's) stands between a tool and its route. The request is real
 * HTTP all the same: the caller's key, the access guard, rate limits, audit and streaming answers
 * work as they do for any client.
 */
export function inProcessFetch(app: RequestListener, caller: InProcessCaller): typeof globalThis.fetch {
  const server = serverOf(app);
  return (input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const request = input instanceof Request && init === undefined ? input : new Request(input, init);
      const url = new URL(request.url);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      headers.host = caller.host ?? 'localhost';
      const outgoing = httpRequest(
        {
          method: request.method,
          path: `${url.pathname}${url.search}`,
          headers,
          createConnection: () => {
            const [client, served] = memoryConnection(caller.remoteAddress);
            server.emit('connection', served);
            return client;
          },
        },
        (res) => {
          const body = NULL_BODY.has(res.statusCode ?? 0) ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>);
          resolve(new Response(body, { status: res.statusCode ?? 500, statusText: res.statusMessage ?? '', headers: webHeaders(res.headers) }));
        },
      );
      outgoing.on('error', reject);
      const abort = () => outgoing.destroy(request.signal.reason instanceof Error ? request.signal.reason : new Error('aborted'));
      if (request.signal.aborted) return abort();
      request.signal.addEventListener('abort', abort, { once: true });
      if (request.body) Readable.fromWeb(request.body as unknown as NodeReadableStream<Uint8Array>).on('error', (err) => outgoing.destroy(err)).pipe(outgoing);
      else outgoing.end();
    });
}

/** Who the in-process requests come from: the MCP caller's address (the loopback rule) and Host. */
export interface InProcessCaller {
  remoteAddress: string | undefined;
  host: string | undefined;
}

const NULL_BODY = new Set([101, 204, 205, 304]);
// One never-listening server per app: it parses the in-memory connections' HTTP for the app.
const servers = new WeakMap<RequestListener, Server>();
function serverOf(app: RequestListener): Server {
  let server = servers.get(app);
  if (!server) servers.set(app, (server = createServer(app)));
  return server;
}

function webHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
  }
  return out;
}

/** One end of an in-memory connection: what one end writes, the other reads. */
class MemorySocket extends Duplex {
  peer!: MemorySocket;
  readonly remotePort = 0;
  readonly localAddress = '127.0.0.1';
  readonly localPort = 0;

  constructor(readonly remoteAddress: string) {
    super();
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.peer.push(chunk);
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.peer.push(null);
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    if (!this.peer.destroyed) this.peer.destroy();
    done(err);
  }

  // What http's client and server call on a net.Socket; a memory connection has no timers or Nagle.
  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

function memoryConnection(remoteAddress: string | undefined): [MemorySocket, MemorySocket] {
  const client = new MemorySocket('127.0.0.1');
  // An unknown caller address is not loopback (fail closed: no loopback-only access by default).
  const served = new MemorySocket(remoteAddress ?? '0.0.0.0');
  client.peer = served;
  served.peer = client;
  return [client, served];
}
