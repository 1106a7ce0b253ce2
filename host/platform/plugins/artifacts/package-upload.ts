import busboy from 'busboy';
import type { Request } from 'express';
import { httpError, invalid } from '../../http/error-catalogue.js';

/** A package form: the `package` file (held in memory, at most `maxBytes`) and the text fields. */
export interface PackageForm {
  fields: Record<string, string>;
  file?: Buffer;
}

/** Reads a multipart/form-data package install; past `maxBytes` it answers 413 and drops the rest. */
export function readPackageForm(req: Request, maxBytes: number): Promise<PackageForm> {
  if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
    throw httpError('unsupported_media_type', { expected: 'multipart/form-data', got: (req.headers['content-type'] ?? 'a body without Content-Type').slice(0, 100) });
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const chunks: Buffer[] = [];
    let file = false;
    let failed: unknown;
    const fail = (err: unknown) => {
      failed ??= err;
      req.unpipe();
      req.resume();
      reject(failed);
    };
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { files: 1, fields: 10, fileSize: maxBytes + 1, fieldSize: 4096 } });
    } catch {
      throw invalid('body', 'a multipart body with a boundary', 400);
    }
    bb.on('field', (name, value) => (fields[name] = value));
    bb.on('file', (name, stream) => {
      if (name !== 'package') {
        stream.resume();
        return fail(invalid(name, 'the package file goes in the field "package"', 400));
      }
      file = true;
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) return fail(httpError('payload_too_large', { what: 'plugin package', limit: `${maxBytes} bytes` }));
        chunks.push(c);
      });
    });
    bb.on('error', () => fail(invalid('body', 'a well-formed multipart body', 400)));
    bb.on('close', () => {
      if (!failed) resolve({ fields, ...(file ? { file: Buffer.concat(chunks) } : {}) });
    });
    req.pipe(bb);
  });
}
