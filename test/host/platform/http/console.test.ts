import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startGateway, tempDir, type TestGateway } from '../../../support/gateway.js';

// The gateway serves a console bundle at `/` with a strict CSP, falls back to it for unknown
// browser navigations, and keeps the API's JSON 404 for API paths. A stand-in bundle keeps this
// test independent of the Vite build (the browser tests use the real one).
const dist = tempDir('switchboard-console-dist-');
mkdirSync(path.join(dist, 'assets'));
writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/assets/app.js"></script>');
writeFileSync(path.join(dist, 'assets', 'app.js'), 'export const x = 1;\n');
let gw: TestGateway;
const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

test.before(async () => {
  gw = await startGateway({ WEB_DIST_DIR: dist });
});
test.after(async () => {
  await gw.close();
  rmSync(dist, { recursive: true, force: true });
});

test('GET / serves the console with a strict Content-Security-Policy', async () => {
  const res = await fetch(`${gw.url}/`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.not.match(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(await res.text(), /<title>console<\/title>/);
});

test('assets are served with the CSP and long caching; a missing asset is a 404, never the page', async () => {
  const res = await fetch(`${gw.url}/assets/app.js`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /javascript/);
  assert.match(res.headers.get('cache-control') ?? '', /immutable/);
  assert.ok(res.headers.get('content-security-policy'));
  const missing = await fetch(`${gw.url}/assets/nope.js`, { headers: html });
  assert.is(missing.status, 404);
  assert.not.match(await missing.text(), /<title>console/);
});

test('an unknown non-API path asked for as HTML falls back to the console', async () => {
  const res = await fetch(`${gw.url}/some/bookmarked/page`, { headers: html });
  assert.is(res.status, 200);
  assert.match(await res.text(), /<title>console<\/title>/);
});

test('the same unknown path asked for as JSON keeps the API 404', async () => {
  const res = await fetch(`${gw.url}/some/bookmarked/page`, { headers: { accept: 'application/json' } });
  assert.is(res.status, 404);
  const body = (await res.json()) as { code: string };
  assert.is(body.code, 'route_not_found');
});

test('API paths keep their JSON 404 even for a browser', async () => {
  for (const p of ['/fax/no-such-route/x', '/admin/nope', '/api/nope', '/health/nope']) {
    const res = await fetch(`${gw.url}${p}`, { headers: html });
    assert.is(res.status, 404, p);
    assert.is(((await res.json()) as { code: string }).code, 'route_not_found', p);
  }
});

test('API routes are unchanged: /health/ready still answers JSON', async () => {
  const res = await fetch(`${gw.url}/health/ready`, { headers: html });
  assert.match(res.headers.get('content-type') ?? '', /json/);
});

test('/api/dev/status reports built_bundle when the bundle is there', async () => {
  const res = await fetch(`${gw.url}/api/dev/status`);
  assert.is(res.status, 200);
  const body = (await res.json()) as { frontend: { frontend_mode: string; frontend_bundle_built_at: string | null } };
  assert.is(body.frontend.frontend_mode, 'built_bundle');
  assert.ok(body.frontend.frontend_bundle_built_at);
});

test('without a bundle, / explains how to build it (and has no script)', async () => {
  const empty = tempDir('switchboard-console-empty-');
  const other = await startGateway({ WEB_DIST_DIR: empty });
  try {
    const res = await fetch(`${other.url}/`);
    assert.is(res.status, 404);
    const text = await res.text();
    assert.match(text, /not built/);
    assert.not.match(text, /<script/);
    const status = (await (await fetch(`${other.url}/api/dev/status`)).json()) as { frontend: { frontend_mode: string } };
    assert.is(status.frontend.frontend_mode, 'absent');
  } finally {
    await other.close();
    rmSync(empty, { recursive: true, force: true });
  }
});

test.run();
