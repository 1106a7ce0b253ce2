import type { ErrorRequestHandler, RequestHandler } from 'express';
import { HttpError, ErrorCodes } from './errors.js';

/** Unknown routes answer 404 in the API's error shape. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ detail: `no route for ${req.method} ${req.path}`, code: ErrorCodes.notFound });
};

/**
 * Turns every thrown error into `{"detail", "code"}`. Unknown errors are logged and answered
 * with a generic 500 so internals never leak.
 */
export function errorHandler(log: (err: unknown) => void = () => {}): ErrorRequestHandler {
  return (err, _req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    if (err instanceof HttpError) {
      for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
      res.status(err.status).json({ detail: err.detail, code: err.code });
      return;
    }
    const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : 500;
    if (status === 400 && err?.type === 'entity.parse.failed') {
      res.status(400).json({ detail: 'request body is not valid JSON', code: ErrorCodes.validation });
      return;
    }
    if (status === 413) {
      res.status(413).json({ detail: 'request body too large', code: ErrorCodes.payloadTooLarge });
      return;
    }
    if (status >= 400 && status < 500) {
      res.status(status).json({ detail: String(err?.message ?? 'bad request'), code: ErrorCodes.validation });
      return;
    }
    log(err);
    res.status(500).json({ detail: 'internal error', code: ErrorCodes.internal });
  };
}
