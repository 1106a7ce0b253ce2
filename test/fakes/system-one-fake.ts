import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted reply of the fake; unscripted requests get a valid answer with `noul` 0.8. */
export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON value, or raw text when a string is given with `raw`. */
  body?: unknown;
  raw?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the connection without answering. */
  drop?: boolean;
}

export interface RecordedRequest {
  at: number;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

/**
 * A loopback stand-in for the hosted judgment backend, speaking its wire format:
 * POST /v1/systemone with `{model, state, questions}`, answering
 * `{model, answers: {qid: {type: "noul", noul}}, usage}`; status, headers, delays and broken
 * answers are scripted per request, and every request is recorded.
 */
export async function startSystemOneFake(): Promise<{
  url: string;
  requests: RecordedRequest[];
  /** The most requests that were in flight at once. */
  maxInFlight(): number;
  script(...replies: ScriptedReply[]): void;
  /** Forgets scripted replies and recorded requests. */
  reset(): void;
  /** Unscripted requests are answered by `fn(request body)`: the probability of each question (default 0.8). */
  answerWith(fn: ((body: any) => number) | undefined): void;
  close(): Promise<void>;
}> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  let answerer: ((body: any) => number) | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => (inFlight -= 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = undefined;
      }
      requests.push({ at: Date.now(), path: req.url ?? '', headers: req.headers, body });
      const reply = queue.shift() ?? {};
      const answer = () => {
        if (reply.drop) return req.socket.destroy();
        const status = reply.status ?? 200;
        const payload =
          reply.raw ??
          JSON.stringify(
            reply.body ?? {
              model: body?.model ?? 'unknown',
              answers: Object.fromEntries(Object.keys(body?.questions ?? {}).map((id) => [id, { type: 'noul', noul: answerer ? answerer(body) : 0.8 }])),
              usage: { input_tokens: 10, output_tokens: 1 },
            },
          );
        res.writeHead(status, { 'content-type': 'application/json', ...reply.headers });
        res.end(payload);
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    maxInFlight: () => maxInFlight,
    script: (...replies) => queue.push(...replies),
    answerWith: (fn) => {
      answerer = fn;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
