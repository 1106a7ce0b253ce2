import { readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { selfSignedCertificate } from './alert-receiver.js';

export interface ReceivedMail {
  envelopeTo: string[];
  mail: ParsedMail;
  /** The session had switched to TLS (STARTTLS) before the message. */
  secure: boolean;
  user: string | undefined;
}

export interface SmtpFake {
  port: number;
  /** PEM of the server's self-signed certificate (for localhost and 127.0.0.1): trust it through the plugin's tlsCa. */
  ca: string;
  received: ReceivedMail[];
  /** SMTP answers for the next messages (at DATA's end), in order; then 250. */
  next(...codes: number[]): void;
  /** Stops listening (the relay is down); start() listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (smtp-server, messages read with mailparser): offers STARTTLS
 * with a certificate made by openssl, wants AUTH with `user`/`password`, and answers each
 * message 250 or the code a test asks for.
 */
export async function startSmtpFake(options: { user: string; password: string; port?: number }): Promise<SmtpFake> {
  const tls = selfSignedCertificate();
  const ca = readFileSync(tls.cert, 'utf8');
  const codes: number[] = [];
  const received: ReceivedMail[] = [];
  const serverOptions: SMTPServerOptions = {
    key: readFileSync(tls.key),
    cert: ca,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.password) return callback(null, { user: auth.username });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const code = codes.shift() ?? 250;
        if (code >= 400) return callback(Object.assign(new Error(code >= 500 ? 'Message refused by the test' : 'Try again later (test)'), { responseCode: code }));
        received.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), mail: await simpleParser(Buffer.concat(chunks)), secure: session.secure, user: session.user as string | undefined });
        callback();
      });
    },
  };
  let server: SMTPServer | undefined;
  let port = options.port ?? 0;
  const start = async () => {
    server = new SMTPServer(serverOptions);
    await new Promise<void>((resolve, reject) => {
      server!.server.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await start();
  return {
    get port() {
      return port;
    },
    ca,
    received,
    next: (...more) => codes.push(...more),
    stop,
    start,
    async close() {
      await stop();
      rmSync(tls.dir, { recursive: true, force: true });
    },
  };
}
