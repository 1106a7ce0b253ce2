import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ApiError, createSwitchboardClient, unwrap } from '../../../clients/typescript/src/index.js';
import { freePort } from '../../support/gateway.js';
import { gatewayForSuite, noisePng, SUITE_KEY as KEY } from './client-suite.js';

const NUMBER = '+15550107777';
const suite = gatewayForSuite(test, { MAX_FILE_SIZE_MB: '1' });

/** The ApiError a call rejects with (a call that resolves fails the test). */
async function failure(call: Promise<unknown>): Promise<ApiError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)}`);
  assert.instance(outcome.error, ApiError, String(outcome.error));
  return outcome.error as ApiError;
}

test('a 404 is ApiError with the status and the API\'s detail and code, from typed calls and run-time requests alike', async () => {
  const client = suite.client();
  const typed = await failure(unwrap(client.GET('/fax/{id}', { params: { path: { id: 'no-such-job' } } })));
  assert.is(typed.status, 404);
  assert.is(typed.code, 'fax_job_not_found');
  assert.ok(typed.detail.length > 0);
  assert.is(typed.message, `404 fax_job_not_found: ${typed.detail}`);
  const loose = await failure(client.request('GET', '/fax/{id}', { params: { id: 'no-such-job' } }));
  assert.equal([loose.status, loose.code, loose.detail], [typed.status, typed.code, typed.detail]);
});

test('a 422 names the failing field in its detail', async () => {
  const client = suite.client();
  const refused = await failure(unwrap(client.POST('/admin/api-keys', { body: { name: 'x', scopes: ['no-such-scope'] } })));
  assert.is(refused.status, 422);
  assert.is(refused.code, 'validation_error');
  assert.match(refused.detail, /no-such-scope/);
});

test('an upload over MAX_FILE_SIZE_MB is ApiError 413 with the API\'s detail, with and without progress; a document of the wrong kind is 415', async () => {
  const client = suite.client();
  const big = await noisePng(800); // about 1.9 MB, over the 1 MB limit
  assert.ok(big.length > 1.5 * 1024 * 1024, `${big.length} bytes`);
  const plain = await failure(client.prepareFax({ to: NUMBER, file: big, filename: 'big.png' }));
  assert.is(plain.status, 413);
  assert.is(plain.code, 'payload_too_large');
  assert.match(plain.detail, /1 MB/);
  const fractions: number[] = [];
  const streamed = await failure(client.prepareFax({ to: NUMBER, file: big, filename: 'big.png', onProgress: (f) => fractions.push(f) }));
  assert.equal([streamed.status, streamed.code, streamed.detail], [plain.status, plain.code, plain.detail]);
  assert.ok(fractions.length > 0, 'part of the body went out before the refusal');

  const wrongKind = await failure(client.sendFax({ to: NUMBER, file: randomBytes(2048), filename: 'data.bin' }));
  assert.is(wrongKind.status, 415);
  assert.is(wrongKind.code, 'unsupported_document');
});

test('an answer that is not the API\'s JSON is ApiError http_<status> with its text as detail', async () => {
  // A proxy in front of the gateway: its own error page, and a JSON body without detail.
  const proxy: Server = createServer((req, res) => {
    if (req.url === '/plugins') res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>\n');
    else res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const client = createSwitchboardClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` });
  try {
    const page = await failure(unwrap(client.GET('/plugins')));
    assert.equal([page.status, page.code, page.detail], [502, 'http_502', '<html>Bad Gateway</html>']);
    const loose = await failure(client.request('GET', '/plugins'));
    assert.equal([loose.status, loose.code, loose.detail], [502, 'http_502', '<html>Bad Gateway</html>']);
    const other = await failure(client.request('GET', '/health'));
    assert.equal([other.status, other.code, other.detail], [503, 'http_503', '{"error":"maintenance"}']);
  } finally {
    await new Promise((resolve) => proxy.close(resolve));
  }
});

test('no answer at all is ApiError status 0 network_error (the reason in the detail); an abort passes through as AbortError', async () => {
  const closed = await freePort(); // listened on, then closed: nothing answers there
  const client = createSwitchboardClient({ baseUrl: `http://127.0.0.1:${closed}`, apiKey: KEY });
  for (const call of [unwrap(client.GET('/health')), client.request('GET', '/health'), client.sendFax({ to: NUMBER, file: randomBytes(10) }), client.prepareFax({ to: NUMBER, file: randomBytes(10), onProgress: () => {} })]) {
    const down = await failure(call);
    assert.is(down.status, 0);
    assert.is(down.code, 'network_error');
    assert.match(down.detail, new RegExp(`127\\.0\\.0\\.1:${closed} did not answer \\(ECONNREFUSED\\)`));
    assert.ok(down.cause, 'the fetch error is kept as the cause');
  }

  const live = suite.client();
  const aborted = AbortSignal.abort();
  for (const call of [live.request('GET', '/health', { signal: aborted }), live.prepareFax({ to: NUMBER, file: randomBytes(10), onProgress: () => {}, signal: aborted })]) {
    const error = await call.then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.not.instance(error, ApiError);
    assert.is((error as Error).name, 'AbortError');
  }
});

test.run();
