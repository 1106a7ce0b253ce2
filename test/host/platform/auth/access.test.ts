import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, ROOT, startGateway, type TestGateway } from '../../../support/gateway.js';
import { startForeignClient } from '../../../support/foreign-client.js';
import { SCOPE_NAMES } from '../../../../host/platform/auth/scopes.js';
import { renderScopeTable } from '../../../../host/platform/auth/scope-table.js';
import type { AccessPin } from '../../../support/access-pins.js';
import { ACCESS_PINS as PLATFORM_PINS } from '../access-pins.js';
import { ACCESS_PINS as FAX_PINS } from '../../surfaces/fax/access-pins.js';
import { ACCESS_PINS as SEARCH_PINS } from '../../surfaces/search/access-pins.js';
import { ACCESS_PINS as WORKBENCH_PINS } from '../../surfaces/workbench/access-pins.js';
import { ACCESS_PINS as MCP_PINS } from '../../mcp/access-pins.js';

const BOOTSTRAP = 'bootstrap-key-9f1c2e7a55d04b3f';
let gw: TestGateway;

async function call(method: string, p: string, key?: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = {};
  if (key) headers['x-api-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${gw.url}${p}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
}

async function mint(scopes: string[], extra: Record<string, unknown> = {}): Promise<{ key_id: string; token: string }> {
  const res = await call('POST', '/admin/api-keys', BOOTSTRAP, { name: `k-${scopes.join('-')}`, scopes, ...extra });
  assert.is(res.status, 201, await res.clone().text());
  return json(res);
}


/** The access of every operation, pinned by hand by the owner of the route, one line each. */
const ACCESS: AccessPin[] = [...PLATFORM_PINS, ...FAX_PINS, ...SEARCH_PINS, ...WORKBENCH_PINS, ...MCP_PINS];

/** `GET /fax/{id}` -> method and a concrete path for it. */
function routeOf(route: string): { method: string; path: string } {
  const [method, p] = route.split(' ') as [string, string];
  return { method: method.toLowerCase(), path: p.replace(/\{keyId\}/g, '0000000000000000').replace(/\{[A-Za-z_]+\}/g, 'placeholder-id') };
}

/** Calls a route the way a client would (JSON bodies get `{}`); streams are cut after the head. */
async function hit(route: { method: string; path: string }, key: string): Promise<{ status: number; code?: string; detail?: string }> {
  const abort = new AbortController();
  const withBody = ['post', 'put', 'patch'].includes(route.method);
  const res = await call(route.method.toUpperCase(), route.path, key, withBody ? {} : undefined, abort.signal);
  const type = res.headers.get('content-type') ?? '';
  let body: { code?: string; detail?: string } = {};
  if (type.includes('application/json')) body = await res.json();
  abort.abort();
  await res.body?.cancel().catch(() => {});
  return { status: res.status, ...(body.code ? { code: body.code } : {}), ...(body.detail ? { detail: body.detail } : {}) };
}

test.before(async () => {
  gw = await startGateway({ API_KEY: BOOTSTRAP, AUDIT_LOG_ENABLED: 'true', INBOUND_ENABLED: 'true', FAX_DISABLED: 'true' });
});
test.after(async () => {
  await gw?.close();
});

test('a non-public route without a key answers 401 with the documented detail', async () => {
  const res = await call('GET', '/fax/whatever');
  assert.is(res.status, 401);
  assert.is((await json(res)).detail, 'Invalid or missing API key (keys exist: send X-API-Key)');
  assert.is((await call('GET', '/admin/settings', 'sbk_0000000000000000_' + 'A'.repeat(43))).status, 401);
  assert.is((await call('GET', '/health')).status, 200);
});

test('/openapi.json lists exactly the routes pinned by hand, each with its pinned access', async () => {
  const doc = await json(await call('GET', '/openapi.json'));
  const served = new Map<string, { scope: string; admin: boolean }>();
  for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) served.set(`${method.toUpperCase()} ${p}`, { scope: op['x-required-scope'], admin: /An admin route/.test(op.description ?? '') });
  }
  const pinned = new Set(ACCESS.map(([route]) => route));
  assert.is(pinned.size, ACCESS.length, 'a route is pinned twice');
  const unpinned = [...served.keys()].filter((r) => !pinned.has(r));
  const gone = [...pinned].filter((r) => !served.has(r));
  assert.equal(unpinned, [], `routes without a pinned access (add a line to the owner's access-pins.ts): ${unpinned.join(', ')}`);
  assert.equal(gone, [], `pinned routes the gateway does not serve: ${gone.join(', ')}`);
  for (const [route, access, admin] of ACCESS) {
    assert.is(served.get(route)!.scope, access, `${route}: access`);
    assert.is(served.get(route)!.admin, admin === 'admin', `${route}: an administrative route`);
  }
});

test('every scoped route answers 403 naming its scope to a key without it, and serves a key with it', async () => {
  const keys = new Map<string, string>();
  for (const scope of SCOPE_NAMES) keys.set(scope, (await mint([scope])).token);
  const scoped = ACCESS.filter(([, access]) => access !== 'public' && access !== 'loopback');
  for (const [name, scope] of scoped) {
    assert.ok(SCOPE_NAMES.includes(scope as never), `${name} pins unknown scope ${scope}`);
    const route = routeOf(name);
    const other = scope === 'fax:read' ? 'search:read' : 'fax:read';
    const denied = await hit(route, keys.get(other)!);
    assert.is(denied.status, 403, `${name} with ${other}`);
    assert.is(denied.code, 'insufficient_scope', name);
    const allowed = await hit(route, keys.get(scope)!);
    assert.ok(allowed.status !== 401 && allowed.code !== 'insufficient_scope', `${name} with ${scope}: ${allowed.status} ${allowed.code}`);
    assert.ok(allowed.status < 500, `${name} with ${scope}: ${allowed.status}`);
    // admin implies every scope
    const asAdmin = await hit(route, keys.get('admin')!);
    assert.ok(asAdmin.code !== 'insufficient_scope', `${name} as admin`);
  }
  // Container controls and dev status: loopback, and once keys exist a key with admin.
  for (const [name] of ACCESS.filter(([, access]) => access === 'loopback')) {
    const route = routeOf(name);
    assert.is((await hit(route, '')).status, 401, `${name} without a key`);
    const denied = await hit(route, keys.get('fax:read')!);
    assert.is(denied.status, 403, `${name} with fax:read`);
    assert.is(denied.code, 'insufficient_scope', name);
    const allowed = await hit(route, keys.get('admin')!);
    assert.ok(allowed.status !== 401 && allowed.status !== 403, `${name} with admin: ${allowed.status} ${allowed.code}`);
  }
  for (const [name] of ACCESS.filter(([, access]) => access === 'public')) {
    // Keys are required on this gateway: a public route is let through the key check (some then
    // check a token of their own, and may refuse for that reason, never for a missing key).
    const route = routeOf(name);
    // The PDF routes take a download token instead of a key: give them a wrong one.
    const res = await hit({ ...route, path: `${route.path}?token=not-a-valid-token` }, '');
    assert.ok(res.detail !== 'Invalid or missing API key' && res.code !== 'insufficient_scope', `${name} is public: ${res.status} ${res.code ?? ''} ${res.detail ?? ''}`);
    // 503 is a deliberate answer here (an inbound provider that is not configured); 500 never is.
    assert.ok(res.status !== 500, `${name}: ${res.status}`);
  }
  const records = await json(await call('GET', '/admin/logs?event=scope_denied&limit=5', BOOTSTRAP));
  assert.ok(records.records.length > 0);
});

test('recording a named evaluation run or saving a baseline needs search:evaluate, not only search:read', async () => {
  const reader = await mint(['search:read']);
  const evaluator = await mint(['search:read', 'search:evaluate']);
  const golden = [{ q: 'x', repo: 'not-configured', expect_paths: ['a'] }];
  for (const body of [{ golden, name: 'nightly', save_as_baseline: true }, { golden, name: 'nightly' }]) {
    for (const p of ['/api/eval/run', '/api/eval/runs']) {
      const denied = await call('POST', p, reader.token, body);
      assert.is(denied.status, 403, `${p} ${JSON.stringify(body)}`);
      const error = await json(denied);
      assert.is(error.code, 'insufficient_scope');
      assert.match(error.detail, /needs scope "search:evaluate"/);
      // Past the scope check: the unknown repository answers.
      assert.is((await call('POST', p, evaluator.token, body)).status, 404);
      assert.is((await call('POST', p, BOOTSTRAP, body)).status, 404, 'admin implies it');
    }
  }
  assert.is((await call('POST', '/api/eval/run', reader.token, { golden })).status, 404, 'an unnamed run needs search:read only');
});

test('the inbound PDF route (token or key) refuses a key without inbound:read', async () => {
  const { token } = await mint(['inbound:list']);
  const res = await call('GET', '/inbound/some-id/pdf', token);
  assert.is(res.status, 403);
  assert.is((await json(res)).code, 'insufficient_scope');
});

test('minting refuses unknown scopes naming them, and scopes the caller does not hold', async () => {
  let res = await call('POST', '/admin/api-keys', BOOTSTRAP, { name: 'x', scopes: ['fax:send', 'fax:teleport'] });
  assert.is(res.status, 422);
  assert.match((await json(res)).detail, 'fax:teleport');
  const manager = await mint(['keys:manage', 'fax:read']);
  res = await call('POST', '/admin/api-keys', manager.token, { name: 'y', scopes: ['admin'] });
  assert.is(res.status, 403);
  res = await call('POST', '/admin/api-keys', manager.token, { name: 'y', scopes: ['fax:read'] });
  assert.is(res.status, 201);
});

test('a keys:manage key cannot revoke or rotate a key holding scopes it lacks', async () => {
  const manager = await mint(['keys:manage']);
  const admin = await mint(['admin']);
  for (const [method, suffix] of [['POST', '/rotate'], ['DELETE', '']] as const) {
    const res = await fetch(`${gw.url}/admin/api-keys/${admin.key_id}${suffix}`, { method, headers: { 'x-api-key': manager.token } });
    assert.is(res.status, 403, `${method} ${suffix}`);
    assert.match((await json(res)).detail, /admin/);
  }
  assert.is((await fetch(`${gw.url}/admin/settings`, { headers: { 'x-api-key': admin.token } })).status, 200, 'the admin key still works');
  const peer = await mint(['keys:manage']);
  assert.is((await fetch(`${gw.url}/admin/api-keys/${peer.key_id}/rotate`, { method: 'POST', headers: { 'x-api-key': manager.token } })).status, 200);
});

test('tokens have the sbk_<id>_<secret> shape; listing never returns a token or its hash', async () => {
  const minted = await mint(['fax:read'], { owner: 'ops', rate_limit_rpm: 100 });
  assert.match(minted.token, new RegExp(`^sbk_${minted.key_id}_[A-Za-z0-9_-]{43}$`));
  const text = await (await call('GET', '/admin/api-keys', BOOTSTRAP)).text();
  assert.not.match(text, minted.token);
  assert.not.match(text, minted.token.split('_').slice(2).join('_'));
  const row = await gw.gateway.database.db.selectFrom('api_keys').select('secret_hash').where('key_id', '=', minted.key_id).executeTakeFirstOrThrow();
  assert.not.match(text, row.secret_hash);
  assert.is.not(row.secret_hash, minted.token);
  const listed = JSON.parse(text).keys.find((k: { key_id: string }) => k.key_id === minted.key_id);
  assert.equal(listed.scopes, ['fax:read']);
  assert.is(listed.owner, 'ops');
  assert.is(listed.rate_limit_rpm, 100);
  assert.not.ok('token' in listed);
});

test('a revoked key and a rotated-away token answer 401; the rotated token works', async () => {
  const a = await mint(['fax:read']);
  assert.is((await call('GET', '/fax/none', a.token)).status, 404);
  assert.is((await call('DELETE', `/admin/api-keys/${a.key_id}`, BOOTSTRAP)).status, 200);
  assert.is((await call('GET', '/fax/none', a.token)).status, 401);
  assert.is((await call('POST', `/admin/api-keys/${a.key_id}/rotate`, BOOTSTRAP)).status, 409);

  const b = await mint(['fax:read']);
  const rotated = await json(await call('POST', `/admin/api-keys/${b.key_id}/rotate`, BOOTSTRAP));
  assert.is(rotated.key_id, b.key_id);
  assert.is.not(rotated.token, b.token);
  assert.is((await call('GET', '/fax/none', b.token)).status, 401);
  assert.is((await call('GET', '/fax/none', rotated.token)).status, 404);
  const events = (await json(await call('GET', '/admin/logs?limit=200', BOOTSTRAP))).records.map((r: { event: string }) => r.event);
  for (const e of ['key_minted', 'key_revoked', 'key_rotated', 'auth_failed', 'key_used']) assert.ok(events.includes(e), e);
});

test('an expired key answers 401', async () => {
  const soon = new Date(Date.now() + 1500).toISOString();
  const k = await mint(['fax:read'], { expires_at: soon });
  assert.is((await call('GET', '/fax/none', k.token)).status, 404);
  await new Promise((r) => setTimeout(r, 1600));
  assert.is((await call('GET', '/fax/none', k.token)).status, 401);
});

test('last-used times are batched to the database', async () => {
  const k = await mint(['fax:read']);
  await call('GET', '/fax/none', k.token);
  await gw.gateway.auth.keys.flushLastUsed();
  const listed = (await json(await call('GET', '/admin/api-keys', BOOTSTRAP))).keys.find((x: { key_id: string }) => x.key_id === k.key_id);
  assert.type(listed.last_used_at, 'string');
});

test('/openapi.json states the scope of every protected operation', async () => {
  const doc = await json(await call('GET', '/openapi.json'));
  assert.equal(doc.paths['/admin/settings'].get.security, [{ ApiKeyAuth: ['admin'] }]);
  assert.equal(doc.paths['/inbound'].get.security, [{ ApiKeyAuth: ['inbound:list'] }]);
  assert.equal(doc.paths['/admin/api-keys'].post.security, [{ ApiKeyAuth: ['keys:manage'] }]);
  assert.equal(doc.paths['/health'].get.security, []);
});

test('docs/platform/authentication.md holds the current scope table', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/platform/authentication.md'), 'utf8');
  assert.ok(doc.includes(renderScopeTable(gw.gateway.api.routes)), 'regenerate: node dist/host/cli/scope-docs.js --write docs/platform/authentication.md');
});

test('with no key, every non-public route answers loopback callers only; once a key exists, every one needs a key', async () => {
  // A caller from another address, made by the test (root + iproute2; never skipped).
  const foreign = startForeignClient();
  const open = await startGateway({ ALLOWED_HOSTS: foreign.serverAddress });
  const server = createServer(open.gateway.app);
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  try {
    const port = (server.address() as AddressInfo).port;
    const remote = `http://${foreign.serverAddress}:${port}`;
    assert.is((await fetch(`${open.url}/admin/settings`)).status, 200);
    assert.is((await fetch(`${open.url}/fax/none`)).status, 404, 'no key exists: this machine needs none');
    const postConfig = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ API_KEY: 'mine' }) };
    const [health, settings, configPost, configGet, mintKey, openRoute] = await foreign.fetchAll([
      { url: `${remote}/health` },
      { url: `${remote}/admin/settings` },
      // The config registry is admin too: no anonymous caller elsewhere may read or change it.
      { url: `${remote}/api/config`, ...postConfig },
      { url: `${remote}/api/config` },
      { url: `${remote}/admin/api-keys`, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'remote', scopes: ['admin'] }) },
      { url: `${remote}/fax/none` },
    ]);
    assert.is(health!.status, 200, `the foreign client reaches the gateway at ${remote}`);
    for (const [answer, what] of [[settings, 'GET /admin/settings'], [configPost, 'POST /api/config'], [configGet, 'GET /api/config'], [mintKey, 'minting the first key'], [openRoute, 'GET /fax/{id}']] as const) {
      assert.is(answer!.status, 403, `${what} from ${foreign.clientAddress}`);
      assert.is(JSON.parse(answer!.body).code, 'loopback_only', what);
      assert.match(JSON.parse(answer!.body).detail, /no API key exists yet/);
    }
    assert.is((await json(await fetch(`${open.url}/api/config`))).API_KEY ?? undefined, undefined, 'the remote write changed nothing');
    assert.is((await fetch(`${open.url}/api/config`)).status, 200, 'the local tour reads the config');
    const res = await fetch(`${open.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'first', scopes: ['admin'] }) });
    assert.is(res.status, 201);
    const { token } = await json(res);
    assert.is((await fetch(`${open.url}/admin/settings`)).status, 401, 'a minted key ends the local tour');
    const faxWithoutKey = await fetch(`${open.url}/fax/none`);
    assert.is(faxWithoutKey.status, 401, 'once a key exists, every non-public route needs one, from loopback too');
    assert.is((await json(faxWithoutKey)).detail, 'Invalid or missing API key (keys exist: send X-API-Key)');
    assert.is((await fetch(`${open.url}/api/search?q=x`)).status, 401);
    assert.is((await fetch(`${open.url}/admin/settings`, { headers: { 'x-api-key': token } })).status, 200);
    const [withKey, faxRemote] = await foreign.fetchAll([{ url: `${remote}/admin/settings`, headers: { 'x-api-key': token } }, { url: `${remote}/fax/none` }]);
    assert.is(withKey!.status, 200, 'with a key, admin answers any address');
    assert.is(faxRemote!.status, 401, 'and without one, no address');
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
    await open.close();
    foreign.close();
  }
});

test('loopback-only routes refuse every other address, whatever key or proxy header it sends', async () => {
  const foreign = startForeignClient();
  const keyed = await startGateway({ API_KEY: BOOTSTRAP, ALLOWED_HOSTS: foreign.serverAddress });
  const server = createServer(keyed.gateway.app);
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', () => r()));
  try {
    const remote = `http://${foreign.serverAddress}:${(server.address() as AddressInfo).port}`;
    const loopbackRoutes = ACCESS.filter(([, access]) => access === 'loopback').map(([route]) => routeOf(route));
    assert.ok(loopbackRoutes.length >= 5);
    const answers = await foreign.fetchAll(
      loopbackRoutes.map((r) => ({
        url: `${remote}${r.path.replace('placeholder-id/placeholder-id', 'postgres/start')}`,
        method: r.method.toUpperCase(),
        headers: { 'x-api-key': BOOTSTRAP, 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1', forwarded: 'for=127.0.0.1' },
      })),
    );
    answers.forEach((answer, i) => {
      assert.is(answer.status, 403, `${loopbackRoutes[i]!.method} ${loopbackRoutes[i]!.path} from ${foreign.clientAddress}`);
      assert.match(answer.body, /"detail"/);
    });
    assert.is((await fetch(`${keyed.url}/api/dev/status`, { headers: { 'x-api-key': BOOTSTRAP } })).status, 200, 'the same route answers loopback');
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections();
    await keyed.close();
    foreign.close();
  }
});

test('REQUIRE_API_KEY without API_KEY requires a key everywhere but public routes', async () => {
  const locked = await startGateway({ REQUIRE_API_KEY: 'true' });
  try {
    assert.is((await fetch(`${locked.url}/fax/none`)).status, 401);
    assert.is((await fetch(`${locked.url}/admin/settings`)).status, 401);
    assert.is((await fetch(`${locked.url}/health`)).status, 200);
  } finally {
    await locked.close();
  }
});

test.run();
