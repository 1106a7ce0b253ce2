import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { HttpError } from './errors.js';
import { ErrorCatalogue, httpError, invalid } from './error-catalogue.js';
import { answerAfterBody } from './refused-body.js';

const platformOnly = new ErrorCatalogue();
/** REFUSED_BODY_DISCARD_MB's default, for an app built without the configuration. */
const DEFAULT_DISCARD_BYTES = 64 * 1024 * 1024;

/** Unknown routes answer 404 in the API's error shape. */
export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(httpError('route_not_found', { method: req.method, path: req.path }));
};

/**
 * Turns every thrown error into `{"detail", "code"}`: HttpErrors as they are, domain errors
 * through the error catalogue (the platform's and the surfaces' codes), express' own parser errors by status. Unknown
 * errors are logged and answered with a generic 500 so internals never leak.
 */
export function errorHandler(log: (err: unknown) => void = () => {}, toHttp: (err: unknown) => HttpError | undefined = (err) => platformOnly.toHttp(err), discardBytes: () => number = () => DEFAULT_DISCARD_BYTES): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    // The client went away mid-request (a body cut off, a closed socket): nobody to answer, and
    // not a fault of this server. (A reset once the body is in is a backing service's: answered.)
    if (req.socket?.destroyed || ((err as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET' && !req.complete)) {
      res.destroy();
      return;
    }
    const answer = err instanceof HttpError ? err : (toHttp(err) ?? fromExpress(err, req));
    if (!answer) log(err);
    const sent = answer ?? httpError('internal_error');
    for (const [k, v] of Object.entries(sent.headers)) res.setHeader(k, v);
    // Refused before its body was read (413, 415, a key missing on an upload): answered once it is.
    answerAfterBody(req, res, discardBytes(), () => void res.status(sent.status).json({ ...sent.extra, detail: sent.detail, code: sent.code }));
  };
}

/** body-parser and other middleware signal client errors with `status`; anything else is ours. */
function fromExpress(err: { status?: unknown; statusCode?: unknown; type?: unknown; message?: unknown; limit?: unknown } | undefined, req: Request): HttpError | undefined {
  const status = typeof err?.status === 'number' ? err.status : typeof err?.statusCode === 'number' ? err.statusCode : 500;
  if (status === 400 && err?.type === 'entity.parse.failed') return invalid('body', 'not valid JSON', 400);
  // express.static (the /docs assets) answers a missing file this way
  if (status === 404) return httpError('route_not_found', { method: req.method, path: req.path });
  if (status === 413) return httpError('payload_too_large', { what: 'request body', limit: typeof err?.limit === 'number' ? `${err.limit} bytes` : 'the route\'s' });
  // other client errors of the parsers (a bad charset, an aborted body) are the request's fault: 400
  if (status >= 400 && status < 500) return invalid('request', String(err?.message ?? 'bad request'), 400);
  return undefined;
}
