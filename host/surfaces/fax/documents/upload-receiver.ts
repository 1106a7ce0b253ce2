import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import busboy from 'busboy';
import type { Request } from 'express';
import type { DomainError } from '../../../platform/errors/domain-error.js';
import { malformedInput, platformErrors } from '../../../platform/errors/platform-errors.js';
import { faxErrors } from '../fax-errors.js';

export interface UploadedFile {
  size: number;
  filename: string;
  /** The whole file: from memory, or read back from its temp file. */
  bytes(): Promise<Buffer>;
}

export interface ReceivedUpload {
  /** Each field's last value. */
  fields: Record<string, string>;
  /** Each field's values in the order they came (a repeated field, e.g. several `to`). */
  repeated: Record<string, string[]>;
  /** The first file part named `fileField`. */
  file?: UploadedFile;
  /** Every file part named `fileField`, in order (at most `maxFiles`). */
  files: UploadedFile[];
  /** Removes the temp files, if the upload needed any. */
  discard(): Promise<void>;
}

/** Limits of one upload beyond the size of each file. */
export interface UploadLimits {
  /** File parts at most (default 1); one more is refused `tooManyFiles()`. */
  maxFiles?: number;
  tooManyFiles?: () => DomainError;
  /** All files together at most; past it refused `tooLargeTotal()` (413). */
  maxTotalBytes?: number;
  tooLargeTotal?: () => DomainError;
  /** Values of one repeated field at most, with the refusal past it. */
  maxRepeats?: { field: string; max: number; refusal: () => DomainError };
}

/**
 * Uploads up to this size stay in memory; a larger one is written to a temp file as it arrives.
 * A fax of a few pages never touches the disk before storage (no temp file to create, read back
 * and remove), while sixteen concurrent uploads hold at most 4 MB between them.
 */
export const SPILL_BYTES = 256 * 1024;

/** What receiving an upload refuses with, beside its size (`payload_too_large`). */
export const UPLOAD_ERRORS = ['multipart_required', 'malformed_multipart', 'upload_not_stored'];

/**
 * Receives a multipart upload, counting bytes: past `maxBytes` it refuses (payload_too_large) at once and drops
 * the rest, so the gateway never holds a large upload in memory. Past SPILL_BYTES the file goes
 * to a temp file as it arrives. A file of exactly `maxBytes` is accepted. Every failure (limits,
 * a body cut off mid-part, an aborted request, a disk error) rejects with a domain error
 * (the fax surface's or the platform's codes; the routes map them) only after the temp file is gone.
 */
export async function receiveUpload(req: Request, options: { maxBytes: number; tmpDir: string; fileField: string } & UploadLimits): Promise<ReceivedUpload> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data/i.test(contentType)) throw faxErrors.error('multipart_required');
  const maxFiles = options.maxFiles ?? 1;
  const declared = Number(req.headers['content-length'] ?? NaN);
  const totalMax = maxFiles > 1 && options.maxTotalBytes !== undefined ? options.maxTotalBytes : undefined;
  if (Number.isFinite(declared) && declared > (totalMax ?? options.maxBytes) + 64 * 1024) {
    req.resume();
    throw totalMax !== undefined && options.tooLargeTotal ? options.tooLargeTotal() : tooLarge(options.maxBytes);
  }
  const temps: { path: string; out: WriteStream }[] = [];
  // A write stream opens its file asynchronously: it is closed before the file is removed,
  // or a late open would create the file again after the removal.
  const discard = async () => {
    for (const { path: tmp, out } of temps.splice(0)) {
      if (!out.closed) {
        const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
        out.destroy();
        await closed;
      }
      await rm(tmp, { force: true });
    }
  };
  return new Promise<ReceivedUpload>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe();
      req.resume();
      discard().then(
        () => reject(err),
        () => reject(err),
      );
    };
    let bb: busboy.Busboy;
    try {
      // One byte over the limit: busboy reports `limit` when a file *reaches* fileSize, and a
      // file of exactly maxBytes is allowed.
      const fieldCount = 20 + (options.maxRepeats?.max ?? 0);
      bb = busboy({ headers: req.headers, limits: { fileSize: options.maxBytes + 1, files: maxFiles, fields: fieldCount, fieldSize: 4096, parts: fieldCount + maxFiles + 5 } });
    } catch (err) {
      reject(faxErrors.error('malformed_multipart', { reason: (err as Error).message }));
      return;
    }
    const malformed = (err: unknown) => fail(faxErrors.error('malformed_multipart', { reason: (err as Error).message }));
    const fields: Record<string, string> = {};
    const repeated: Record<string, string[]> = {};
    const files: UploadedFile[] = [];
    const writing: Promise<void>[] = [];
    let total = 0;
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(malformedInput(name, 'too long'));
      fields[name] = value;
      const values = (repeated[name] ??= []);
      values.push(value);
      if (options.maxRepeats?.field === name && values.length > options.maxRepeats.max) fail(options.maxRepeats.refusal());
    });
    bb.on('file', (name, stream, info) => {
      // A body cut off inside a file part destroys the part's stream with "Unexpected end of
      // form"; without a listener that error would end the process.
      stream.on('error', malformed);
      if (name !== options.fileField) {
        stream.resume();
        return;
      }
      let size = 0;
      let over = false;
      const held: Buffer[] = [];
      let tmp: string | undefined;
      let out: WriteStream | undefined;
      const spill = () => {
        tmp = path.join(options.tmpDir, `upload-${randomBytes(8).toString('hex')}.part`);
        // Synchronous, once per large upload: one syscall when the directory exists.
        mkdirSync(options.tmpDir, { recursive: true, mode: 0o700 });
        const target = createWriteStream(tmp, { mode: 0o600 });
        out = target;
        temps.push({ path: tmp, out: target });
        const written = new Promise<void>((res, rej) => {
          target.on('finish', res);
          target.on('error', rej);
        });
        writing.push(written);
        // A disk error is the server's fault, not the caller's (after `fail`, this is a no-op).
        written.catch(() => fail(faxErrors.error('upload_not_stored')));
        for (const chunk of held.splice(0)) target.write(chunk);
      };
      stream.on('data', (chunk: Buffer) => {
        if (over || settled) return;
        size += chunk.length;
        total += chunk.length;
        if (totalMax !== undefined && total > totalMax) {
          over = true;
          stream.resume();
          return fail(options.tooLargeTotal ? options.tooLargeTotal() : tooLarge(totalMax));
        }
        if (!out) {
          held.push(chunk);
          try {
            if (size > SPILL_BYTES) spill();
          } catch {
            // The temp dir cannot be made (permissions, a full disk): the server's fault.
            fail(faxErrors.error('upload_not_stored'));
          }
        } else if (!out.write(chunk)) {
          // Back-pressure: the sender waits for the disk rather than the gateway buffering.
          stream.pause();
          out.once('drain', () => stream.resume());
        }
      });
      stream.on('limit', () => {
        over = true;
        stream.resume();
        fail(tooLarge(options.maxBytes));
      });
      stream.on('end', () => {
        if (over || settled) return;
        if (out) {
          const spilled = tmp!;
          out.end();
          files.push({ size, filename: info.filename ?? 'upload', bytes: () => readFile(spilled) });
        } else {
          const whole = held.length === 1 ? held[0]! : Buffer.concat(held, size);
          files.push({ size, filename: info.filename ?? 'upload', bytes: async () => whole });
        }
      });
    });
    bb.on('filesLimit', () => fail(maxFiles > 1 && options.tooManyFiles ? options.tooManyFiles() : faxErrors.error('malformed_multipart', { reason: 'only one file may be uploaded' })));
    bb.on('partsLimit', () => fail(faxErrors.error('malformed_multipart', { reason: 'too many parts in the multipart request' })));
    bb.on('fieldsLimit', () => fail(faxErrors.error('malformed_multipart', { reason: 'too many fields in the multipart request' })));
    bb.on('error', malformed);
    bb.on('close', () => {
      if (settled) return;
      Promise.all(writing)
        .then(() => {
          if (settled) return;
          settled = true;
          resolve({ fields, repeated, ...(files[0] ? { file: files[0] } : {}), files, discard });
        })
        .catch(fail);
    });
    req.on('aborted', () => fail(faxErrors.error('malformed_multipart', { reason: 'upload aborted' })));
    req.on('error', () => fail(faxErrors.error('malformed_multipart', { reason: 'upload aborted' })));
    req.pipe(bb);
  });
}

// The answer's Connection: close comes from the error handler, which ends every answer to an unread body so.
function tooLarge(maxBytes: number): DomainError {
  return platformErrors.error('payload_too_large', { what: 'file', limit: `${Math.round(maxBytes / 1024 / 1024)} MB` });
}
