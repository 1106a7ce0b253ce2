import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { httpFaxManifest } from './manifest-fixture.js';
import { hang, json, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { startHttpFax, type HttpFaxUnderTest } from './harness.js';

let provider: RecordingProvider;
let under: HttpFaxUnderTest;

const manifest = httpFaxManifest({
  http: {
    actions: {
      send: { method: 'POST', url: '{{ settings.base_url }}/faxes', body: { kind: 'json', template: { to: '{{ to }}' } }, response: { job_id: 'data.id', error: 'error.message' }, timeout_ms: 400 },
      status: { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}', response: { status: 'status' }, timeout_ms: 400 },
    },
    status_map: {},
  },
  settings: { base_url: { type: 'string', required: true } },
});

test.before(async () => {
  provider = await startRecordingProvider();
  under = await startHttpFax(manifest, { base_url: provider.origin });
});
test.after(async () => {
  await under.stop();
  await provider.close();
});

async function failure(promise: Promise<unknown>): Promise<Error & { retryAfterMs?: number }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { retryAfterMs?: number };
  }
  throw new Error('expected the call to fail');
}

test('a 5xx answer is NotAcceptedError: the fax was not taken, sending again is safe', async () => {
  provider.answer(json(503, { error: { message: 'maintenance' } }));
  const err = await failure(under.fax.send(under.request()));
  assert.is(err.name, 'NotAcceptedError');
  assert.match(err.message, /\(HTTP 503\): maintenance/);
});

test('a 504 answer is UncertainOutcomeError: a gateway gave up after forwarding the request', async () => {
  provider.answer(json(504, { error: { message: 'upstream timeout' } }));
  const err = await failure(under.fax.send(under.request()));
  assert.is(err.name, 'UncertainOutcomeError');
});

test('a 429 answer is NotAcceptedError with Retry-After in milliseconds', async () => {
  provider.answer(json(429, { error: { message: 'slow down' } }, { 'retry-after': '7' }));
  const err = await failure(under.fax.send(under.request()));
  assert.is(err.name, 'NotAcceptedError');
  assert.is(err.retryAfterMs, 7000);
});

test('a 4xx answer is RejectedError with the provider message', async () => {
  provider.answer(json(422, { error: { message: 'invalid number' } }));
  const err = await failure(under.fax.send(under.request()));
  assert.is(err.name, 'RejectedError');
  assert.match(err.message, /\(HTTP 422\): invalid number/);
});

test('no answer before the timeout is UncertainOutcomeError: the fax may have been accepted', async () => {
  provider.answer(hang);
  const started = Date.now();
  const err = await failure(under.fax.send(under.request()));
  assert.is(err.name, 'UncertainOutcomeError');
  assert.ok(Date.now() - started < 5000);
  const statusErr = await failure(under.fax.status({ jobId: 'j', to: '+1', providerSid: 's', sentAt: new Date() }));
  assert.is(statusErr.name, 'UncertainOutcomeError');
});

test('a 2xx answer that is not JSON, or has no job id, is UncertainOutcomeError', async () => {
  provider.answer((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>ok</html>'));
  const notJson = await failure(under.fax.send(under.request()));
  assert.is(notJson.name, 'UncertainOutcomeError');
  assert.match(notJson.message, /not JSON/);
  provider.answer(json(200, { data: { state: 'queued' } }));
  const noId = await failure(under.fax.send(under.request()));
  assert.is(noId.name, 'UncertainOutcomeError');
  assert.match(noId.message, /without a job id at "data\.id"/);
});

test('a refused connection is NotAcceptedError', async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const closed = await startHttpFax(manifest, { base_url: `http://127.0.0.1:${port}` });
  try {
    const err = await failure(closed.fax.send(closed.request()));
    assert.is(err.name, 'NotAcceptedError');
    assert.match(err.message, /ECONNREFUSED/);
  } finally {
    await closed.stop();
  }
});

test.run();
