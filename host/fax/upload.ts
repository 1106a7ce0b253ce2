import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';
import type { Request } from 'express';
import { HttpError } from '../http/errors.js';
import { httpError, invalid } from '../http/error-catalogue.js';

export interface ReceivedUpload {
  fields: Record<string, string>;
  file?: { path: string; size: number; filename: string };
  /** Removes the temp file. */
  discard(): Promise<void>;
}

/**
 * Streams a multipart upload to a temp file, counting bytes: past `maxBytes` it answers 413
 * at once and drops the rest, so the gateway never holds a large upload in memory.
 */
export async function receiveUpload(req: Request, options: { maxBytes: number; tmpDir: string; fileField: string }): Promise<ReceivedUpload> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) throw httpError('multipart_required');
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes + 64 * 1024) {
    req.resume();
    throw tooLarge(options.maxBytes);
  }
  await mkdir(options.tmpDir, { recursive: true, mode: 0o700 });
  const tmp = path.join(options.tmpDir, `upload-${randomBytes(8).toString('hex')}.part`);
  const discard = () => rm(tmp, { force: true });
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe();
      req.resume();
      void discard();
      reject(err);
    };
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: options.maxBytes, files: 1, fields: 20, fieldSize: 4096, parts: 25 } });
    } catch (err) {
      reject(httpError('malformed_multipart', { reason: (err as Error).message }));
      return;
    }
    const fields: Record<string, string> = {};
    let file: ReceivedUpload['file'];
    let writing: Promise<void> | undefined;
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(invalid(name, 'too long', 400));
      fields[name] = value;
    });
    bb.on('file', (name, stream, info) => {
      if (name !== options.fileField) {
        stream.resume();
        return;
      }
      let size = 0;
      const out = createWriteStream(tmp, { mode: 0o600 });
      writing = new Promise((res, rej) => {
        out.on('finish', res);
        out.on('error', rej);
      });
      // After a limit the stream is torn down on purpose; that rejection is not news.
      writing.catch(() => {});
      stream.on('data', (chunk: Buffer) => (size += chunk.length));
      stream.on('limit', () => {
        stream.unpipe(out);
        stream.resume();
        out.destroy();
        fail(tooLarge(options.maxBytes));
      });
      stream.pipe(out);
      stream.on('end', () => {
        file = { path: tmp, size, filename: info.filename ?? 'upload' };
      });
    });
    bb.on('filesLimit', () => fail(httpError('malformed_multipart', { reason: 'only one file may be uploaded' })));
    bb.on('error', (err) => fail(httpError('malformed_multipart', { reason: (err as Error).message })));
    bb.on('close', () => {
      if (settled) return;
      Promise.resolve(writing)
        .then(() => {
          if (settled) return;
          settled = true;
          resolve({ fields, ...(file ? { file } : {}), discard });
        })
        .catch(fail);
    });
    req.on('aborted', () => fail(httpError('malformed_multipart', { reason: 'upload aborted' })));
    req.pipe(bb);
  });
}

function tooLarge(maxBytes: number): HttpError {
  return httpError('payload_too_large', { what: 'file', limit: `${Math.round(maxBytes / 1024 / 1024)} MB` }).withHeaders({ Connection: 'close' });
}
