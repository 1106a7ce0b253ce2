import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { StorageNotFoundError, type StorageProvider } from '../../core/sdk/index.js';
import { HttpError } from './errors.js';

/** Streams a stored PDF as the response (no-store); a missing object answers 404 `missing`. */
export async function sendStoredPdf(
  storage: StorageProvider,
  key: string,
  res: Response,
  options: { filename: string; disposition: 'inline' | 'attachment'; missing: string },
): Promise<void> {
  let stream;
  try {
    stream = await storage.stream(key);
  } catch (err) {
    if (err instanceof StorageNotFoundError) throw new HttpError(404, options.missing);
    throw err;
  }
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Disposition', `${options.disposition}; filename="${options.filename}"`);
  await pipeline(stream, res);
}
