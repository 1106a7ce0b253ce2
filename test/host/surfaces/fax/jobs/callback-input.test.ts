import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { startProviderAFake, type ProviderAFake } from '../../../../fakes/providera-fake.js';
import { json, postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';

/** Bad input on the provider callbacks and the search route: each gets a clear error. */
let gw: TestGateway;
let fake: ProviderAFake;
const SECRET = 'callback-input-secret';
const sign = (body: string) => createHmac('sha256', SECRET).update(body).digest('hex');
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'k', apiSecret: SECRET });
  gw = await startGateway({ FAX_DISPATCH_POLL_MS: '50', FAX_BACKEND: 'providera', PROVIDERA_BASE_URL: fake.baseUrl, PROVIDERA_API_KEY: 'k', PROVIDERA_API_SECRET: SECRET, PROVIDERA_VERIFY_SIGNATURE: 'true' });
});
test.after(async () => {
  await gw.close();
  await fake.close();
});

/** The spec's path and the generic route of provider A's callbacks must behave alike. */
for (const cb of ['/providera-callback', '/webhooks/providera/callback']) {
  test(`${cb}: a callback without job_id is 400`, async () => {
    const body = 'fax%5Bid%5D=1&fax%5Bstatus%5D=success';
    const res = await post(cb, body, { 'x-providera-signature': sign(body) });
    assert.is(res.status, 400);
    assert.match((await json(res)).detail, /job_id/);
  });

  test(`${cb}: an oversized callback body is 413 before any parsing`, async () => {
    const body = 'x='.padEnd(300 * 1024, 'a');
    const res = await post(`${cb}?job_id=j`, body, { 'x-providera-signature': sign(body) });
    assert.is(res.status, 413);
  });

  test(`${cb}: a bad or missing signature is 401`, async () => {
    const body = 'fax%5Bid%5D=1&fax%5Bstatus%5D=success';
    assert.is((await post(`${cb}?job_id=j`, body, { 'x-providera-signature': createHmac('sha256', 'other').update(body).digest('hex') })).status, 401);
    const res = await post(`${cb}?job_id=j`, body);
    assert.is(res.status, 401);
    assert.is((await json(res)).detail, 'invalid or missing signature');
  });

  test(`${cb}: a signed callback with a malformed body is 400; for an unknown job 404`, async () => {
    const malformed = 'nothing=useful';
    const bad = await post(`${cb}?job_id=j`, malformed, { 'x-providera-signature': sign(malformed) });
    assert.is(bad.status, 400);
    assert.match((await json(bad)).detail, /malformed callback/);
    const body = 'fax%5Bid%5D=1&fax%5Bstatus%5D=success&fax%5Bnum_pages%5D=1';
    const unknown = await post(`${cb}?job_id=no-such-job`, body, { 'x-providera-signature': sign(body) });
    assert.is(unknown.status, 404);
  });

  test(`${cb}: a signed callback replayed under another job_id is refused (409) and changes nothing`, async () => {
    const [a, b] = await Promise.all([postFax(gw.url, '+15550108881', await makePdf(1)), postFax(gw.url, '+15550108882', await makePdf(1))]);
    const jobA = await json(a);
    const jobB = await json(b);
    const sid = (id: string) => until(async () => (await json(await fetch(`${gw.url}/fax/${id}`))).provider_sid, 8000, 40);
    await sid(jobA.id);
    await sid(jobB.id);
    fake.setStatus((await json(await fetch(`${gw.url}/fax/${jobA.id}`))).provider_sid, 'failure', 1);
    const callback = fake.buildCallback(jobA.id);
    const url = new URL(callback.url);
    const onRoute = `${gw.url}${cb}${url.search}`;
    const replayed = await fetch(onRoute.replace(jobA.id, jobB.id), { method: 'POST', body: new Uint8Array(callback.body), headers: callback.headers });
    assert.is(replayed.status, 409);
    assert.is((await json(await fetch(`${gw.url}/fax/${jobB.id}`))).status, 'in_progress');
    assert.is((await fetch(onRoute, { method: 'POST', body: new Uint8Array(callback.body), headers: callback.headers })).status, 200, 'under its own job it applies');
    assert.is((await json(await fetch(`${gw.url}/fax/${jobA.id}`))).status, 'FAILED');
  });
}

test('a callback for a provider that is not active is 503, on both routes; an unknown plugin 404', async () => {
  const body = 'FaxSid=FX1&FaxStatus=delivered';
  for (const path of ['/providerc-callback?job_id=j', '/webhooks/providerc/callback?job_id=j']) {
    const res = await post(path, body);
    assert.is(res.status, 503, path);
    assert.match((await json(res)).detail, /providerc/);
  }
  assert.is((await post('/webhooks/nosuch/callback?job_id=j', body)).status, 404);
  assert.is((await post('/webhooks/storage-local/callback?job_id=j', body)).status, 404);
});

test('search rejects malformed query parameters with 422 naming them', async () => {
  for (const [q, field] of [['', 'q'], ['q=x&top_k=0', 'top_k'], ['q=x&top_k=abc', 'top_k'], ['q=x&repo=../etc', 'repo']] as const) {
    const res = await fetch(`${gw.url}/api/search?${q}`);
    assert.is(res.status, 422, q);
    assert.match((await json(res)).detail, new RegExp(field), q);
  }
});

test.run();
