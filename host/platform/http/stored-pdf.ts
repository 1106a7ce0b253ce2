import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import type { StorageProvider } from '../../../core/sdk/index.js';

/** Streams a stored PDF as the response (no-store). */
export async function sendStoredPdf(
  storage: StorageProvider,
  key: string,
  res: Response,
  options: { filename: string; disposition: 'inline' | 'attachment' },
): Promise<void> {
  // a missing object throws StorageNotFoundError: 404 document_expired through the domain mapping
  const stream = await storage.stream(key);
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Disposition', `${options.disposition}; filename="${options.filename}"`);
  await pipeline(stream, res);
}
