import express, { type Express, type Request } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HttpApi } from './api.js';

/**
 * The console's Content-Security-Policy: every script, style and connection from this origin
 * only, no inline script, no framing. The bundle is built without inline code (web/vite.config.ts).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths the gateway itself answers outside the declared routes. */
const FIXED_API_SEGMENTS = ['openapi.json', 'docs', 'mcp', 'metrics', 'assets'];

/** The console's headers (CSP, no framing, no sniffing, no referrer); /docs answers with them too. */
export function consoleHeaders(res: express.Response): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
}

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Switchboard console</title></head><body><main><h1>The console is not built</h1><p>Run <code>npm start</code> (it builds web/dist when missing) or <code>node host/bin/build-web.mjs</code>, then reload. The HTTP API is unaffected: see <a href="/docs">/docs</a>.</p></main></body></html>`;

/**
 * Serves the built console (web/dist) at `/`: its hashed assets under /assets, index.html at `/`
 * and for any other GET of a non-API path that asks for HTML (a bookmarked or mistyped page).
 * API paths keep their JSON 404.
 */
export function mountConsole(app: Express, api: HttpApi, distDir: string): void {
  let apiSegments: Set<string> | undefined;
  const isApiPath = (p: string): boolean => {
    apiSegments ??= new Set([...FIXED_API_SEGMENTS, ...api.routes.map((r) => r.path.split('/')[1] ?? '')]);
    return apiSegments.has(p.split('/')[1] ?? '');
  };
  const sendIndex = (res: express.Response): void => {
    consoleHeaders(res);
    res.setHeader('Cache-Control', 'no-cache');
    const index = path.join(distDir, 'index.html');
    if (!existsSync(index)) {
      res.status(404).type('html').send(NOT_BUILT_PAGE);
      return;
    }
    res.sendFile(index);
  };
  app.use(
    '/assets',
    express.static(path.join(distDir, 'assets'), {
      index: false,
      fallthrough: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (res) => consoleHeaders(res),
    }),
  );
  app.get('/', (_req, res) => sendIndex(res));
  app.get(/.*/, (req: Request, res, next) => {
    if (isApiPath(req.path) || !acceptsHtmlExplicitly(req)) return next();
    sendIndex(res);
  });
}

/** Only a browser's navigation (Accept naming text/html) gets the page; `*\/*` alone keeps the JSON 404. */
function acceptsHtmlExplicitly(req: Request): boolean {
  return /\btext\/html\b/.test(req.get('accept') ?? '');
}
