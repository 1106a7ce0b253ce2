import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, type TestGateway } from '../../../support/gateway.js';

const BOOTSTRAP = 'bootstrap-key-rl-4b7e19c2d8a6';
const opened: TestGateway[] = [];

async function gateway(env: Record<string, string>): Promise<TestGateway> {
  const g = await startGateway({ API_KEY: BOOTSTRAP, AUDIT_LOG_ENABLED: 'true', ...env });
  opened.push(g);
  return g;
}

async function mint(g: TestGateway, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${g.url}/admin/api-keys`, { method: 'POST', headers: { 'x-api-key': BOOTSTRAP, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.is(res.status, 201);
  return (await json(res)).token;
}

const get = (g: TestGateway, p: string, key?: string) => fetch(`${g.url}${p}`, key ? { headers: { 'x-api-key': key } } : {});

test.after(async () => {
  for (const g of opened) await g.close();
});

test('the third request over a limit of 2 answers 429 with Retry-After and an audit record', async () => {
  const g = await gateway({ MAX_REQUESTS_PER_MINUTE: '2' });
  const key = await mint(g, { name: 'reader', scopes: ['fax:read'] });
  assert.is((await get(g, '/fax/a', key)).status, 404);
  assert.is((await get(g, '/fax/a', key)).status, 404);
  const third = await get(g, '/fax/a', key);
  assert.is(third.status, 429);
  const retry = Number(third.headers.get('retry-after'));
  assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
  assert.is((await json(third)).code, 'rate_limited');
  // Another key has its own budget.
  const other = await mint(g, { name: 'other', scopes: ['fax:read'] });
  assert.is((await get(g, '/fax/a', other)).status, 404);
  await g.gateway.audit.flush();
  const logs = await json(await get(g, '/admin/logs?event=rate_limited', BOOTSTRAP));
  assert.is(logs.records.length, 1);
  assert.is(logs.records[0].bucket, 'fax');
});

test('schema proposals draw from their own bucket, SCHEMA_PROPOSAL_RPM', async () => {
  const g = await gateway({ SCHEMA_PROPOSAL_RPM: '2' });
  const key = await mint(g, { name: 'indexer', scopes: ['search:index'] });
  const propose = () => fetch(`${g.url}/api/index/nope/schema-proposal`, { method: 'POST', headers: { 'x-api-key': key } });
  assert.is((await propose()).status, 404);
  assert.is((await propose()).status, 404);
  const third = await propose();
  assert.is(third.status, 429);
  assert.is((await json(third)).code, 'rate_limited');
  assert.ok(Number(third.headers.get('retry-after')) >= 1);
  assert.is((await get(g, '/api/search?q=x&repo=nope', key)).status, 403, 'other routes keep their own budget');
});

test("a key's rate_limit_rpm overrides the setting; callers without a key are limited by address", async () => {
  const g = await gateway({ MAX_REQUESTS_PER_MINUTE: '5', INBOUND_ENABLED: 'true', INBOUND_LIST_RPM: '1' });
  const slow = await mint(g, { name: 'slow', scopes: ['fax:read'], rate_limit_rpm: 1 });
  assert.is((await get(g, '/fax/a', slow)).status, 404);
  assert.is((await get(g, '/fax/a', slow)).status, 429);
  const lister = await mint(g, { name: 'lister', scopes: ['inbound:list'] });
  assert.is((await get(g, '/inbound', lister)).status, 200);
  assert.is((await get(g, '/inbound', lister)).status, 429);
  const open = await startGateway({ MAX_REQUESTS_PER_MINUTE: '1' });
  opened.push(open);
  assert.is((await get(open, '/fax/a')).status, 404);
  assert.is((await get(open, '/fax/a')).status, 429);
});

test('on PostgreSQL two instances share one budget', async () => {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `rl_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const a = await gateway({ DATABASE_URL: url.href, MAX_REQUESTS_PER_MINUTE: '2' });
  const b = await gateway({ DATABASE_URL: url.href, MAX_REQUESTS_PER_MINUTE: '2' });
  const key = await mint(a, { name: 'shared', scopes: ['fax:read'] });
  assert.is((await get(a, '/fax/a', key)).status, 404);
  assert.is((await get(b, '/fax/a', key)).status, 404, 'the key minted on a is known on b');
  const third = await get(a, '/fax/a', key);
  assert.is(third.status, 429);
  assert.ok(Number(third.headers.get('retry-after')) >= 1);
  assert.is((await get(b, '/fax/a', key)).status, 429);
});

test('a key revoked on one instance stops working on the other within API_KEY_CACHE_SECONDS', async () => {
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  const name = `rv_${process.pid}_${Date.now()}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const a = await gateway({ DATABASE_URL: url.href, API_KEY_CACHE_SECONDS: '1' });
  const b = await gateway({ DATABASE_URL: url.href, API_KEY_CACHE_SECONDS: '1' });
  const res = await fetch(`${a.url}/admin/api-keys`, { method: 'POST', headers: { 'x-api-key': BOOTSTRAP, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'r', scopes: ['fax:read'] }) });
  const { key_id, token } = await json(res);
  assert.is((await get(b, '/fax/a', token)).status, 404);
  assert.is((await fetch(`${a.url}/admin/api-keys/${key_id}`, { method: 'DELETE', headers: { 'x-api-key': BOOTSTRAP } })).status, 200);
  const started = Date.now();
  while ((await get(b, '/fax/a', token)).status !== 401) {
    assert.ok(Date.now() - started < 4000, 'still accepted after the cache window');
    await new Promise((r) => setTimeout(r, 100));
  }
});

test.run();
