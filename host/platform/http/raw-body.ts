import type { Request } from 'express';
import { httpError } from './error-catalogue.js';
import type { HttpError } from './errors.js';

/**
 * Reads a request body as bytes, refusing more than `limit` (413 `tooLarge`). Past the limit it
 * stops reading and leaves the socket open: the error handler discards the rest and answers, so
 * the client reads the 413 (a stream torn down mid-body would reset the connection). `inspect`
 * sees each piece as it arrives and may refuse the body by throwing; the reading stops the same way.
 */
export function readRawBody(
  req: Request,
  limit = 256 * 1024,
  tooLarge: () => HttpError = () => httpError('payload_too_large', { what: 'request body', limit: `${limit} bytes` }),
  inspect?: (chunk: Buffer) => void,
): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (then: () => void) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      then();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      let refused: unknown = size > limit ? tooLarge() : undefined;
      if (refused === undefined && inspect) {
        try {
          inspect(chunk);
        } catch (err) {
          refused = err;
        }
      }
      if (refused === undefined) return void chunks.push(chunk);
      req.pause();
      settle(() => reject(refused));
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = (err: Error) => settle(() => reject(err));
    const onClose = () => settle(() => reject(Object.assign(new Error('the request was aborted'), { code: 'ECONNRESET' })));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/** Lower-cased header map with single values, as provider webhooks see them. */
export function flatHeaders(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
