import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { httpFaxManifest } from './manifest-fixture.js';
import { startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { startHttpFax, type HttpFaxUnderTest } from './harness.js';

let provider: RecordingProvider;
const running: HttpFaxUnderTest[] = [];

test.before(async () => {
  provider = await startRecordingProvider();
});
test.after(async () => {
  for (const r of running) await r.stop();
  await provider.close();
});
test.before.each(() => {
  provider.requests.length = 0;
});

const SETTINGS = {
  base_url: { type: 'string', required: true },
  user: { type: 'string', required: true, secret: true },
  key: { type: 'string', required: true, secret: true },
};

/** Sends one fax through a manifest whose send action uses `auth`; returns what the provider got. */
async function sendWith(auth: unknown, url = '{{ settings.base_url }}/faxes') {
  const manifest = httpFaxManifest({
    http: { actions: { send: { method: 'POST', url, auth, body: { kind: 'json', template: { to: '{{ to }}' } } } }, status_map: {} },
    settings: SETTINGS,
  });
  const under = await startHttpFax(manifest, { base_url: provider.origin, user: 'acct-42', key: 'k3y-s3cret' });
  running.push(under);
  await under.fax.send(under.request());
  assert.is(provider.requests.length, 1);
  return provider.requests[0]!;
}

test('auth none sends no credential', async () => {
  const sent = await sendWith({ kind: 'none' });
  assert.is(sent.headers.authorization, undefined);
  assert.is(sent.url, '/faxes');
});

test('basic auth sends the rendered user and password as a Basic header', async () => {
  const sent = await sendWith({ kind: 'basic', username: '{{ secrets.user }}', password: '{{ secrets.key }}' });
  assert.is(sent.headers.authorization, `Basic ${Buffer.from('acct-42:k3y-s3cret').toString('base64')}`);
  assert.is(sent.url, '/faxes');
});

test('bearer auth sends the token as a Bearer header', async () => {
  const sent = await sendWith({ kind: 'bearer', token: '{{ secrets.key }}' });
  assert.is(sent.headers.authorization, 'Bearer k3y-s3cret');
});

test('api_key_header sends the key in the named header and no Authorization', async () => {
  const sent = await sendWith({ kind: 'api_key_header', header: 'X-Api-Key', value: '{{ secrets.key }}' });
  assert.is(sent.headers['x-api-key'], 'k3y-s3cret');
  assert.is(sent.headers.authorization, undefined);
});

test('api_key_query appends the key as a query parameter after those of the URL', async () => {
  const sent = await sendWith({ kind: 'api_key_query', param: 'api_key', value: '{{ secrets.key }}' }, '{{ settings.base_url }}/faxes?format=json');
  assert.is(sent.url, '/faxes?format=json&api_key=k3y-s3cret');
  assert.is(sent.headers.authorization, undefined);
});

test('a refused credential is a RejectedError naming HTTP 401, and the secret is in no log line', async () => {
  const lines: string[] = [];
  const manifest = httpFaxManifest({
    http: { actions: { send: { method: 'POST', url: '{{ settings.base_url }}/faxes', auth: { kind: 'bearer', token: '{{ secrets.key }}' } } }, status_map: {} },
    settings: SETTINGS,
  });
  const under = await startHttpFax(manifest, { base_url: provider.origin, user: 'u', key: 'k3y-s3cret' }, { logLines: lines });
  running.push(under);
  provider.answer((_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"bad token"}'));
  const err = await under.fax.send(under.request()).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /HTTP 401/);
  assert.ok(lines.length > 0, 'the failure was logged');
  assert.not.ok(lines.some((l) => l.includes('k3y-s3cret')));
});

test.run();
