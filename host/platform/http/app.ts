import express, { type Express } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import type { HttpApi } from './api.js';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { consoleHeaders, mountConsole } from './console.js';
import { DOCS_INIT, DOCS_PAGE, openApiDocument } from './openapi.js';

/** The express app around the declared routes: metrics, logs, /openapi.json, /docs, errors. */
export function createExpressApp(api: HttpApi, deps: { logger: Logger; metrics: Registry; version: string; console?: { root: string; dir: string | undefined }; refusedBodyDiscardBytes?: () => number }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const duration = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [deps.metrics],
  });
  app.use((req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
      if (res.statusCode >= 500) deps.logger.warn({ method: req.method, route, status: res.statusCode }, 'request failed');
      else deps.logger.debug({ method: req.method, route, status: res.statusCode }, 'request');
    });
    next();
  });
  app.use(api.router);
  // Built once, so never before the plugins' routes are declared: until then it answers 503.
  app.get('/openapi.json', (_req, res, next) => {
    const refusal = api.phase.refusal();
    if (refusal) return next(refusal);
    res.json(openApiDocument(api, deps.version));
  });
  const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // The API viewer is a page of this origin like the console: the same CSP and framing rules.
  app.use('/docs', (_req, res, next) => {
    consoleHeaders(res);
    next();
  });
  app.get('/docs', (_req, res) => void res.type('html').send(DOCS_PAGE));
  app.get('/docs/init.js', (_req, res) => void res.type('application/javascript').send(DOCS_INIT));
  app.use('/docs/assets', express.static(swaggerDir, { index: false, fallthrough: false }));
  // The web console (web/dist, or WEB_DIST_DIR) at `/`, after every API route.
  if (deps.console) mountConsole(app, api, deps.console.dir ? path.resolve(deps.console.dir) : path.join(deps.console.root, 'web', 'dist'));
  // A path no route answers yet may be one a plugin's manifest declares: not a 404 before they load.
  app.use((req, res, next) => {
    const refusal = api.phase.refusal();
    if (refusal) return next(refusal);
    notFoundHandler(req, res, next);
  });
  app.use(errorHandler((err) => deps.logger.error({ err }, 'unhandled error'), (err) => api.errors.toHttp(err), deps.refusedBodyDiscardBytes));
  return app;
}
