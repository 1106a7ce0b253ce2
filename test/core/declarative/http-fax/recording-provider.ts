/**
 * A loopback HTTP server standing in for a hosted fax API described by a manifest: it records
 * every request exactly as it arrived (method, path with raw query, headers, body bytes) and
 * answers with whatever the test scripts.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, parseForm, readBody, type ParsedForm } from '../../../fakes/hosted-fax-fake-kit.js';

export interface RecordedRequest {
  method: string;
  /** Path and query as sent, not decoded. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Responder = (req: RecordedRequest, res: ServerResponse) => void;

export interface RecordingProvider {
  origin: string;
  requests: RecordedRequest[];
  /** The answer for the following requests (default: 200 `{"id": "sid-1", "status": "queued"}`). */
  answer(responder: Responder): void;
  close(): Promise<void>;
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Responder => (_req, res) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
};

/** Never answers: the request hangs until the client gives up. */
export const hang: Responder = () => {};

export async function startRecordingProvider(host = '127.0.0.1'): Promise<RecordingProvider> {
  const requests: RecordedRequest[] = [];
  let responder: Responder = json(200, { id: 'sid-1', status: 'queued' });
  const server = createServer(async (req: IncomingMessage, res) => {
    const body = await readBody(req);
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: rawUrl,
      path: queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt),
      query: new URLSearchParams(queryAt < 0 ? '' : rawUrl.slice(queryAt + 1)),
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    responder(recorded, res);
  });
  const origin = await new Promise<string>((resolve, reject) => {
    if (host === '127.0.0.1') return void listen(server).then(resolve, reject);
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      if (!address || typeof address === 'string') return reject(new Error('no address'));
      resolve(`http://${host}:${address.port}`);
    });
  });
  return {
    origin,
    requests,
    answer(next) {
      responder = next;
    },
    close: () => closeServer(server),
  };
}

/** The fields and files of a recorded form or multipart body, as busboy parses them. */
export function formOf(request: RecordedRequest): Promise<ParsedForm> {
  return parseForm(request.headers, request.body);
}
