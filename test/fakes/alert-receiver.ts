import { execFileSync } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';

/** How the receiver answers the next request: a status, never (hang), or a dropped connection mid-request (crash). */
export type ReceiverMode = number | 'hang' | 'crash';

export interface AlertReceiver {
  url: string;
  /** PEM of the receiver's self-signed certificate (https only): trust it through ALERT_WEBHOOK_CA_FILE. */
  caFile?: string;
  received: Array<{ headers: IncomingHttpHeaders; body: any; answered: ReceiverMode; raw?: string; path?: string }>;
  /** Answers for the next requests, in order; then 200. */
  next(...modes: ReceiverMode[]): void;
  close(): Promise<void>;
}

/** A self-signed certificate for 127.0.0.1 and localhost made with openssl, in a temp dir (the SMTP fake uses it too). */
export function selfSignedCertificate(): { dir: string; key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
  return { dir, key, cert };
}

/**
 * A loopback alert receiver, HTTPS with a certificate the test makes (or plain http for the
 * development flag): records each request and answers 2xx, 4xx, 5xx, hangs, or crashes.
 */
export async function startAlertReceiver(options: { tls?: boolean; port?: number } = { tls: true }): Promise<AlertReceiver> {
  const received: AlertReceiver['received'] = [];
  const modes: ReceiverMode[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const mode = modes.shift() ?? 200;
    if (mode === 'crash') {
      // Read part of the request, then drop the connection without an answer.
      req.once('data', () => req.socket.destroy());
      received.push({ headers: req.headers, body: undefined, answered: mode });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      received.push({ headers: req.headers, body, answered: mode, raw: Buffer.concat(chunks).toString('utf8'), path: req.url ?? '' });
      if (mode === 'hang') return;
      res.writeHead(mode, { 'content-type': 'application/json' });
      res.end('{}');
    });
  };
  let certDir: string | undefined;
  let server: Server;
  let caFile: string | undefined;
  if (options.tls !== false) {
    const { dir, key, cert } = selfSignedCertificate();
    certDir = dir;
    caFile = cert;
    server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, handler) as unknown as Server;
  } else {
    server = createHttpServer(handler);
  }
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls !== false ? 'https' : 'http'}://127.0.0.1:${port}/hooks/alerts`,
    ...(caFile ? { caFile } : {}),
    received,
    next: (...m) => modes.push(...m),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (certDir) rmSync(certDir, { recursive: true, force: true });
    },
  };
}
