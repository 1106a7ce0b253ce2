import { request } from 'node:http';

const MAX_BODY_CHARS = 64 * 1024;

/** What the server answered: the status and the body as text. */
export interface ProbeAnswer {
  status: number;
  body: string;
}

/**
 * A plain GET over node:http, no redirect followed. The health check runs at idle (when the
 * plugin turns active and at every alert evaluation), and fetch would load undici (about 4 MB
 * resident) for it. Rejects with the reason as the message: the socket error's code
 * (ECONNREFUSED, say) or, when `signal` aborts, its reason's message.
 */
export function getText(url: URL, signal: AbortSignal): Promise<ProbeAnswer> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException) => {
      const reason = signal.aborted ? (signal.reason as Error).message : typeof err.code === 'string' ? err.code : err.message;
      reject(new Error(reason, { cause: err }));
    };
    const req = request(url, { signal, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        // A health answer is a few hundred bytes: a server streaming more is not one.
        if (body.length > MAX_BODY_CHARS) req.destroy(new Error(`health answer over ${MAX_BODY_CHARS} characters`));
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}
