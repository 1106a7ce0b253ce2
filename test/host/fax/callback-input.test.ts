import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';
import { json, startGateway, type TestGateway } from '../../support/gateway.js';

/** Bad input on the provider callbacks and the search route: each gets a clear error. */
let gw: TestGateway;
let fake: ProviderAFake;
const SECRET = 'callback-input-secret';
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'k', apiSecret: SECRET });
  gw = await startGateway({ FAX_BACKEND: 'providera', PROVIDERA_BASE_URL: fake.baseUrl, PROVIDERA_API_KEY: 'k', PROVIDERA_API_SECRET: SECRET, PROVIDERA_VERIFY_SIGNATURE: 'true' });
});
test.after(async () => {
  await gw.close();
  await fake.close();
});

test('a callback without job_id is 400', async () => {
  const body = 'fax%5Bid%5D=1&fax%5Bstatus%5D=success';
  const res = await post('/providera-callback', body, { 'x-providera-signature': sign(body) });
  assert.is(res.status, 400);
  assert.match((await json(res)).detail, /job_id/);
});

test('an oversized callback body is 413 before any parsing', async () => {
  const body = 'x='.padEnd(300 * 1024, 'a');
  const res = await post('/providera-callback?job_id=j', body, { 'x-providera-signature': sign(body) });
  assert.is(res.status, 413);
});

test('a signed callback with a malformed body is 400; for an unknown job 404', async () => {
  const malformed = 'nothing=useful';
  const bad = await post('/providera-callback?job_id=j', malformed, { 'x-providera-signature': sign(malformed) });
  assert.is(bad.status, 400);
  assert.match((await json(bad)).detail, /malformed callback/);
  const body = 'fax%5Bid%5D=1&fax%5Bstatus%5D=success&fax%5Bnum_pages%5D=1';
  const unknown = await post('/providera-callback?job_id=no-such-job', body, { 'x-providera-signature': sign(body) });
  assert.is(unknown.status, 404);
});

test('a callback for a provider that is not active is 503', async () => {
  const body = 'FaxSid=FX1&FaxStatus=delivered';
  const res = await post('/providerc-callback?job_id=j', body);
  assert.is(res.status, 503);
  assert.match((await json(res)).detail, /providerc/);
});

test('search rejects malformed query parameters with 400 naming them', async () => {
  for (const [q, field] of [['', 'q'], ['q=x&top_k=0', 'top_k'], ['q=x&top_k=abc', 'top_k'], ['q=x&repo=../etc', 'repo']] as const) {
    const res = await fetch(`${gw.url}/api/search?${q}`);
    assert.is(res.status, 400, q);
    assert.match((await json(res)).detail, new RegExp(field), q);
  }
});

test.run();
