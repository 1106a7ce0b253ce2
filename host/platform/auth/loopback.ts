import type { Request } from 'express';

/** The caller is on this machine (loopback address; no proxy headers are trusted). */
export function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}
