import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, type TestGateway } from '../../../support/gateway.js';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway();
});
test.after(async () => {
  await gw.close();
});

test('GET /health answers {"status":"ok"}', async () => {
  assert.equal(await json(await fetch(`${gw.url}/health`)), { status: 'ok' });
});

test('/openapi.json lists every declared route with its scope', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  assert.is(doc.openapi, '3.1.0');
  for (const route of gw.gateway.api.routes) {
    const p = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const op = doc.paths[p]?.[route.method];
    assert.ok(op, `${route.method.toUpperCase()} ${p} is in /openapi.json`);
    if (typeof route.access === 'object') assert.equal(op.security, [{ ApiKeyAuth: [route.access.scope] }], `${p} names its scope`);
  }
  assert.ok(doc.components.securitySchemes.ApiKeyAuth);
  assert.ok(Object.keys(doc.paths).length >= 40, `${Object.keys(doc.paths).length} paths`);
});

test('/docs serves the viewer and its assets', async () => {
  const page = await fetch(`${gw.url}/docs`);
  assert.is(page.status, 200);
  assert.match(await page.text(), /swagger-ui-bundle\.js/);
  // The console's rules: same-origin scripts only, never framed.
  assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'.*frame-ancestors 'none'/);
  assert.is(page.headers.get('x-frame-options'), 'DENY');
  assert.is((await fetch(`${gw.url}/docs/assets/swagger-ui-bundle.js`)).status, 200);
  assert.is((await fetch(`${gw.url}/docs/assets/../../package.json`)).status, 404);
});

test('/metrics exposes Prometheus text with request and plugin series', async () => {
  await fetch(`${gw.url}/health`);
  const res = await fetch(`${gw.url}/metrics`);
  assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
  const text = await res.text();
  assert.match(text, /switchboard_http_request_duration_seconds_bucket\{.*route="\/health"/);
  assert.match(text, /switchboard_plugin_active_generation\{plugin="storage-local"\} 1/);
});

test('errors are {"detail"} with the right status: unknown route, malformed JSON', async () => {
  const missing = await fetch(`${gw.url}/no/such/route`);
  assert.is(missing.status, 404);
  assert.ok((await json(missing)).detail);
  const bad = await fetch(`${gw.url}/api/config`, { method: 'POST', body: '{oops', headers: { 'content-type': 'application/json' } });
  assert.is(bad.status, 400);
  assert.match((await json(bad)).detail, /JSON/);
});

test('/health/ready has one check per dependency and per active plugin', async () => {
  const res = await fetch(`${gw.url}/health/ready`);
  const report = await json(res);
  const names = report.checks.map((c: any) => c.name);
  for (const n of ['database', 'fax_backend', 'storage', 'pdf_renderer', 'plugin:storage-local']) assert.ok(names.includes(n), `${n} in ${names.join(',')}`);
  // A fresh install: the default fax backend has no credentials yet, a warning that says why.
  assert.is(res.status, 200, JSON.stringify(report));
  const fax = report.checks.find((c: any) => c.name === 'fax_backend');
  assert.is(fax.warning, true);
  assert.match(fax.detail, /not configured/);
  assert.match(fax.detail, /providera/);
});

test.run();
