import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, createSwitchboardClient, fillPath, queryString, unwrap } from '../../../clients/typescript/src/index.js';
import { makePdf } from '../../fakes/fax-document-server.js';
import { gatewayForSuite, SUITE_KEY as KEY } from './client-suite.js';

const suite = gatewayForSuite(test, { AUDIT_LOG_ENABLED: 'true' });

/** The real fetch, with each request's URL and headers written down on the way out. */
function recordingFetch() {
  const seen: Array<{ method: string; url: string; headers: Headers }> = [];
  const fetchAndRecord = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, url: request.url, headers: new Headers(request.headers) });
    return fetch(request);
  };
  return { seen, fetch: fetchAndRecord };
}

test('fillPath fills {name} and :name with URL-encoded values; a missing value throws; queryString skips null and undefined and repeats arrays', () => {
  assert.is(fillPath('/fax/{id}/pdf', { id: 'a/b c?#%' }), '/fax/a%2Fb%20c%3F%23%25/pdf');
  assert.is(fillPath('/api/docker/services/:service/:action', { service: 'db', action: 'restart', unused: 1 }), '/api/docker/services/db/restart');
  assert.is(fillPath('/api/index/{corpus_id}/runs/:run_id', { corpus_id: 7, run_id: true }), '/api/index/7/runs/true');
  assert.throws(() => fillPath('/fax/{id}', {}), /needs a value for "id"/);
  assert.is(queryString({ a: 'x y&z', skip: undefined, none: null, n: 0, flag: false, many: ['1', 2], obj: { k: 'v' } }), '?a=x+y%26z&n=0&flag=false&many=1&many=2&obj=%7B%22k%22%3A%22v%22%7D');
  assert.is(queryString({ skip: undefined }), '');
});

test('request() templates the path (both styles) and the query, and the gateway reads back exactly the values sent', async () => {
  const recorder = recordingFetch();
  const client = createSwitchboardClient({ baseUrl: `${suite.gw.url}/`, apiKey: KEY, fetch: recorder.fetch });
  const odd = 'job/with space?and#hash%';
  const missing = await client.request('GET', '/fax/{id}', { params: { id: odd } }).catch((err: ApiError) => err);
  assert.instance(missing, ApiError);
  assert.is((missing as ApiError).detail, `fax job "${odd}" not found`, 'the id arrived whole, decoded by the gateway');
  assert.is(recorder.seen.at(-1)!.url, `${suite.gw.url}/fax/job%2Fwith%20space%3Fand%23hash%25`);

  // The same 404 as an answer, not an error, when the caller accepts it.
  const accepted = await client.request<{ code: string }>('GET', '/fax/{id}', { params: { id: odd }, acceptStatus: [404] });
  assert.is(accepted.code, 'fax_job_not_found');

  const minted = await client.request<{ key_id: string; token: string }>('POST', '/admin/api-keys', { json: { name: 'reader', scopes: ['fax:read'] } });
  const records = await client.request<{ records: Array<{ event: string; key_id?: string }> }>('GET', '/admin/logs', { query: { event: 'key_minted', limit: 5, before: undefined } });
  assert.ok(records.records.length > 0 && records.records.every((r) => r.event === 'key_minted'), JSON.stringify(records));
  assert.ok(records.records.some((r) => r.key_id === minted.key_id));
  assert.is(new URL(recorder.seen.at(-1)!.url).search, '?event=key_minted&limit=5');

  const revoked = await client.request<{ key_id: string; revoked_at: string | null }>('DELETE', '/admin/api-keys/:keyId', { params: { keyId: minted.key_id } });
  assert.is(revoked.key_id, minted.key_id);
  assert.ok(revoked.revoked_at);
  assert.is(recorder.seen.at(-1)!.method, 'DELETE');

  const before = recorder.seen.length;
  await client.request('GET', '/fax/{id}', {}).then(
    () => assert.unreachable('a path variable without a value'),
    (err: Error) => assert.instance(err, TypeError),
  );
  assert.is(recorder.seen.length, before, 'nothing was sent');
});

test('the key may be a function read on every request; default headers go with every call, typed or not', async () => {
  const recorder = recordingFetch();
  let key: string | null = null;
  const client = createSwitchboardClient({ baseUrl: suite.gw.url, apiKey: () => key, headers: { 'x-client-name': 'requests-test' }, fetch: recorder.fetch });
  const refused = await unwrap(client.GET('/admin/api-keys')).catch((err: ApiError) => err);
  assert.is((refused as ApiError).status, 401);
  assert.is((refused as ApiError).code, 'unauthorized');
  key = KEY;
  const { keys } = await unwrap(client.GET('/admin/api-keys'));
  assert.ok(Array.isArray(keys));
  assert.ok(await client.request('GET', '/admin/api-keys'));
  assert.equal(
    recorder.seen.map((r) => [r.headers.get('x-api-key'), r.headers.get('x-client-name')]),
    [
      [null, 'requests-test'],
      [KEY, 'requests-test'],
      [KEY, 'requests-test'],
    ],
  );
});

test('download() gives a binary answer as a Blob; raw() gives the Response', async () => {
  const client = suite.client();
  const pdf = await makePdf(1);
  const job = await client.sendFax({ to: '+15550106666', file: pdf, filename: 'one.pdf' });
  const blob = await client.download('/admin/fax-jobs/{id}/pdf', { params: { id: job.id } });
  const bytes = Buffer.from(await blob.arrayBuffer());
  assert.is(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(blob.type, /application\/pdf/);
  const response = await client.raw('GET', '/health');
  assert.is(response.status, 200);
  assert.equal(await response.json(), { status: 'ok' });
});

test.run();
