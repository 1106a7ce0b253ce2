import type { Request } from 'express';
import type { AccessGuard } from '../http/api.js';
import { HttpError } from '../http/errors.js';

export function isLoopback(req: Request): boolean {
  const address = req.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || address.startsWith('127.');
}

/**
 * Access without API keys configured: public routes are open; loopback routes and routes that
 * always need a key (admin, plugin management) answer only callers on this machine.
 */
export const loopbackGuard: AccessGuard = async (access, req) => {
  if (access === 'public') return;
  if (access === 'loopback' || access.always) {
    if (!isLoopback(req)) throw new HttpError(access === 'loopback' ? 403 : 401, access === 'loopback' ? 'this endpoint answers loopback callers only' : 'Invalid or missing API key');
  }
};
