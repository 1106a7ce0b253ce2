import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { json, startGateway, type TestGateway } from '../../../support/gateway.js';

// DNS rebinding and cross-site requests: a browser on another site must not drive the gateway.
// node:http rather than fetch, so the test sets Host, Origin and Sec-Fetch-Site as a browser would.

let gw: TestGateway;
let port: number;

interface Answer {
  status: number;
  code?: string;
  detail?: string;
}

function send(method: string, p: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: p, headers: { ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: { code?: string; detail?: string } = {};
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON (a stream, a PDF): the status says enough
        }
        resolve({ status: res.statusCode!, ...(parsed.code ? { code: parsed.code } : {}), ...(parsed.detail ? { detail: parsed.detail } : {}) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const ATTACKER = 'https://attacker.example';

test.before(async () => {
  // No key: the open local tour, the case a rebinding attack targets.
  gw = await startGateway({ ALLOWED_HOSTS: 'fax.internal, gw.example:9999', PUBLIC_API_URL: 'https://fax.example.com/base' });
  port = Number(new URL(gw.url).port);
});
test.after(async () => {
  await gw?.close();
});

test('a non-public route answers 421 for a Host that is not one of this gateway (DNS rebinding)', async () => {
  const exported = await send('GET', '/admin/settings/export?reveal=true', { host: 'attacker.example' });
  assert.is(exported.status, 421);
  assert.is(exported.code, 'host_not_allowed');
  assert.match(exported.detail!, /attacker\.example/);
  for (const host of ['attacker.example:80', '127.0.0.1.attacker.example', 'localhost.attacker.example', '127.0.0.256', 'gw.example:8080', '2130706433']) {
    const answer = await send('GET', '/fax/none', { host });
    assert.is(answer.status, 421, host);
  }
  // loopback names, the host of PUBLIC_API_URL and ALLOWED_HOSTS (with or without a port)
  for (const host of [`localhost:${port}`, 'localhost', `127.0.0.1:${port}`, '127.8.9.10', `[::1]:${port}`, 'fax.example.com', 'FAX.internal:1234', 'gw.example:9999']) {
    const answer = await send('GET', '/admin/settings', { host });
    assert.is(answer.status, 200, `${host}: ${answer.status} ${answer.code ?? ''}`);
  }
  // Public routes answer any Host: health probes by address, provider webhooks behind a proxy.
  assert.is((await send('GET', '/health', { host: 'attacker.example' })).status, 200);
});

test('a state-changing request from another site is refused before its route runs', async () => {
  const reload = await send('POST', '/admin/settings/reload', { origin: ATTACKER });
  assert.is(reload.status, 403);
  assert.is(reload.code, 'cross_site_request');
  assert.match(reload.detail!, /attacker\.example/);
  const fetchSite = await send('POST', '/admin/diagnostics/run', { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, '{}');
  assert.is(fetchSite.status, 403);
  assert.is(fetchSite.code, 'cross_site_request');
  // An opaque origin (a sandboxed frame, a file) is another site too.
  assert.is((await send('POST', '/admin/settings/reload', { origin: 'null' })).code, 'cross_site_request');
  // Admin and loopback-only routes refuse other sites on reads too; other reads do not.
  assert.is((await send('GET', '/admin/settings/export', { 'sec-fetch-site': 'cross-site' })).code, 'cross_site_request');
  assert.is((await send('GET', '/api/dev/status', { origin: ATTACKER })).code, 'cross_site_request');
  assert.is((await send('GET', '/fax/none', { 'sec-fetch-site': 'cross-site' })).status, 404);
});

test('a registry install by a "simple" cross-site POST is refused and installs nothing', async () => {
  const simple: Array<Record<string, string>> = [{ origin: ATTACKER, 'content-type': 'text/plain' }, { 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }, { origin: ATTACKER }];
  for (const headers of simple) {
    const answer = await send('POST', '/plugin-registry/keyfax/install', headers, headers['content-type'] ? '' : undefined);
    assert.is(answer.status, 403, JSON.stringify(headers));
    assert.is(answer.code, 'cross_site_request');
  }
  assert.not.ok(existsSync(path.join(gw.dataDir, 'manifests', 'keyfax.json')));
});

test('the same origin is served: the console on its own origin, and curl without Origin', async () => {
  for (const origin of [gw.url, `http://localhost:${port}`, 'https://fax.example.com', 'http://localhost:5173']) {
    const answer = await send('POST', '/admin/settings/validate', { origin, 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, JSON.stringify({ settings: {} }));
    assert.ok(answer.code !== 'cross_site_request' && answer.status < 500, `${origin}: ${answer.status} ${answer.code ?? ''}`);
  }
  assert.is((await send('GET', '/admin/settings', { origin: gw.url, 'sec-fetch-site': 'same-origin' })).status, 200);
});

test('a JSON route takes application/json or no body: text/plain and forms answer 415 and start nothing', async () => {
  const plain = await send('POST', '/api/index/start', { 'content-type': 'text/plain' }, '{"repo":"switchboard"}');
  assert.is(plain.status, 415);
  assert.is(plain.code, 'unsupported_media_type');
  assert.match(plain.detail!, /application\/json/);
  assert.is((await send('POST', '/api/index/start', { 'content-type': 'application/x-www-form-urlencoded' }, '')).status, 415, 'an empty form body');
  assert.is((await send('POST', '/api/index/start', {}, '{"repo":"switchboard"}')).status, 415, 'a body without Content-Type');
  const status = await json(await fetch(`${gw.url}/api/index/status`));
  assert.is(status.run, null, 'no run started');
  // The same rule on every JSON route, whether its body is optional or required.
  assert.is((await send('POST', '/api/config', { 'content-type': 'text/plain' }, '{"FINAL_K":3}')).status, 415);
  assert.is((await send('PUT', '/admin/settings', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--')).status, 415);
  assert.is((await send('POST', '/api/config', { 'content-type': 'application/json; charset=utf-8' }, '{}')).status, 200);
  // A route that reads no body refuses a text/plain one too, and takes none or JSON.
  assert.is((await send('POST', '/admin/settings/reload', { 'content-type': 'text/plain' }, 'reload')).status, 415);
  assert.is((await send('POST', '/admin/settings/reload', { 'content-type': 'application/x-www-form-urlencoded' }, '')).status, 200);
  assert.is((await send('POST', '/admin/settings/reload')).status, 200);
});

test('provider webhooks, posted server to server without Origin, still reach their plugin', async () => {
  // A form post as hosted providers send it, through a proxy that rewrote Host.
  for (const p of ['/webhooks/providera/callback', '/providera-callback', '/providerb-inbound', '/webhooks/providerb/inbound']) {
    const answer = await send('POST', p, { host: 'gateway:8080', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'provider/1.0' }, 'FaxSid=FX1&Status=delivered');
    assert.ok(!['cross_site_request', 'unsupported_media_type', 'host_not_allowed'].includes(answer.code ?? ''), `${p}: ${answer.status} ${answer.code}`);
    // 503 is the plugin's own answer here (not configured); hosted-providers-flow.test proves signed posts end to end.
    assert.ok(answer.status !== 500, `${p}: ${answer.status}`);
  }
});

test.run();
