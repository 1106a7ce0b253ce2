import { createRequire } from 'node:module';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { removeDir, tempDir } from './gateway.js';

/** s3rver ships no types: the part of its API the tests use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

const require = createRequire(import.meta.url);

export const S3_ACCESS_KEY_ID = 'AKIASWITCHBOARDTEST';
export const S3_SECRET_ACCESS_KEY = 'sb-s3-secret-4f1c9e7a2b6d';

export interface S3Server {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The directory s3rver keeps buckets in. */
  directory: string;
  close(): Promise<void>;
}

/**
 * s3rver, an S3-protocol server (multipart, ListObjectsV2; it checks a SigV4 request's access key
 * id but not its signature), in this process on
 * a loopback port 0, its buckets in a temp directory removed on close.
 */
export async function startS3Server(buckets: string[] = ['artifacts']): Promise<S3Server> {
  const S3rver = require('s3rver') as S3rverClass;
  // Credentials of our own besides s3rver's built-in S3RVER/S3RVER pair.
  const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } };
  DUMMY_ACCOUNT.createKeyPair(S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY);
  const directory = tempDir();
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const { port } = await server.run();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    directory,
    async close() {
      await server.close();
      removeDir(directory);
    },
  };
}

export interface DroppingProxy {
  url: string;
  /** Method and path?query of every request that reached the proxy. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy in front of an S3 server that destroys the connection of every request
 * `drop` picks (a server failing mid-upload), forwarding the others untouched.
 */
export async function startDroppingProxy(target: string, drop: (method: string, url: string) => boolean): Promise<DroppingProxy> {
  const requests: string[] = [];
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (drop(req.method!, req.url!)) {
      req.socket.destroy();
      return;
    }
    const forward = http.request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
