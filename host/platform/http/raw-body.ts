import type { Request } from 'express';
import { httpError } from './error-catalogue.js';

/** Reads a request body as bytes, refusing more than `limit` (413). */
export async function readRawBody(req: Request, limit = 256 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw httpError('payload_too_large', { what: 'request body', limit: `${limit} bytes` });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Lower-cased header map with single values, as provider webhooks see them. */
export function flatHeaders(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
