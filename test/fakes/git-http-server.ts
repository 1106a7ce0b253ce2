import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the server saw it: who it authenticated as (null: refused with 401) and the answer's status. */
export interface GitHttpRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  user: string | null;
  status: number;
}

export interface GitHttpServer {
  /** http:// URL of a repository under the root, e.g. url('secure.git'). */
  url(name: string, host?: string): string;
  port: number;
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

/** The user an Authorization header names when its secret is right: Basic user:password, or a Bearer token. */
function authenticate(header: string | undefined, users: Readonly<Record<string, string>>, tokens: Readonly<Record<string, string>>): string | null {
  const [scheme, value = ''] = (header ?? '').split(' ', 2);
  if (scheme?.toLowerCase() === 'bearer') return Object.hasOwn(tokens, value) ? tokens[value]! : null;
  if (scheme?.toLowerCase() !== 'basic') return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const user = decoded.slice(0, colon);
  return colon > 0 && Object.hasOwn(users, user) && users[user] === decoded.slice(colon + 1) ? user : null;
}

/**
 * Git's smart HTTP on loopback through the real `git http-backend` CGI (git help http-backend):
 * every request must carry HTTP Basic auth of a known user (or a known bearer token), else 401
 * with a Basic challenge, as a server behind a web server's auth would answer. The request is
 * handed to the CGI as REQUEST_METHOD, PATH_INFO, QUERY_STRING, CONTENT_TYPE, REMOTE_USER and
 * GIT_PROTOCOL (protocol v2); its `Status:` and headers become the response.
 */
export async function startGitHttpServer(options: { root: string; users: Record<string, string>; tokens?: Record<string, string>; host?: string }): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://git.invalid');
    const record: GitHttpRequest = { method: req.method ?? 'GET', path: url.pathname, authorization: req.headers.authorization, user: authenticate(req.headers.authorization, options.users, options.tokens ?? {}), status: 0 };
    requests.push(record);
    if (!record.user) {
      record.status = 401;
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: options.root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: record.method,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REMOTE_USER: record.user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      ...(req.headers['content-type'] ? { CONTENT_TYPE: req.headers['content-type'] } : {}),
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(typeof req.headers['git-protocol'] === 'string' ? { GIT_PROTOCOL: req.headers['git-protocol'] } : {}),
    };
    const cgi = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    req.pipe(cgi.stdin);
    cgi.stdin.on('error', () => undefined); // the CGI may answer before reading the whole body
    let head = Buffer.alloc(0);
    let started = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      started = true;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      record.status = status;
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', (code) => {
      if (started) return void res.end();
      record.status = 500;
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`git http-backend exited ${code} without an answer\n`);
    });
  };
  const server = createServer(handler);
  server.on('connection', (s) => (sockets.add(s), s.once('close', () => sockets.delete(s))));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (name, at = host) => `http://${at}:${port}/${name}`,
    port,
    requests,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
