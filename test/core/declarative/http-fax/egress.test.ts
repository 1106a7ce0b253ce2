import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { httpFaxManifest } from './manifest-fixture.js';
import { json, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { startHttpFax, type HttpFaxUnderTest } from './harness.js';

// The provider listens on 127.0.0.1 (in egress); the other host on 127.0.0.2 (not in egress).
let provider: RecordingProvider;
let elsewhere: RecordingProvider;
const running: HttpFaxUnderTest[] = [];

test.before(async () => {
  provider = await startRecordingProvider('127.0.0.1');
  elsewhere = await startRecordingProvider('127.0.0.2');
});
test.after(async () => {
  for (const r of running) await r.stop();
  await provider.close();
  await elsewhere.close();
});
test.before.each(() => {
  provider.requests.length = 0;
  elsewhere.requests.length = 0;
});

async function start(base: string) {
  const manifest = httpFaxManifest({
    http: {
      actions: {
        send: { method: 'POST', url: '{{ settings.base_url }}/faxes', body: { kind: 'json', template: { to: '{{ to }}' } } },
        status: { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}', response: { status: 'status' } },
      },
      status_map: {},
    },
    settings: { base_url: { type: 'string', required: true } },
    egress: ['127.0.0.1'],
  });
  const under = await startHttpFax(manifest, { base_url: base });
  running.push(under);
  return under;
}

test('a URL whose host is outside egress is refused as RejectedError and never reaches that host', async () => {
  const under = await start(elsewhere.origin);
  const err = await under.fax.send(under.request()).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /host "127\.0\.0\.2:\d+" is not in the manifest's egress list/);
  assert.is(elsewhere.requests.length, 0);
  const health = await under.started.instance.health!();
  assert.is(health.ok, false, 'health reports the send host outside egress');
});

test('a redirect to a host outside egress is refused, and that host sees nothing', async () => {
  const under = await start(provider.origin);
  provider.answer((_req, res) => void res.writeHead(307, { location: `${elsewhere.origin}/faxes` }).end());
  const err = await under.fax.send(under.request()).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /127\.0\.0\.2/);
  assert.is(provider.requests.length, 1);
  assert.is(elsewhere.requests.length, 0);
  const statusErr = await under.fax.status({ jobId: 'j', to: '+1', providerSid: 'sid-1', sentAt: new Date() }).catch((e: Error) => e);
  assert.is((statusErr as Error).name, 'RejectedError');
  assert.is(elsewhere.requests.length, 0);
});

test('a redirect inside egress is followed', async () => {
  const under = await start(provider.origin);
  provider.answer((req, res) => {
    if (req.path === '/faxes') return void res.writeHead(307, { location: '/v2/faxes' }).end();
    json(200, { id: 'moved-1' })(req, res);
  });
  const result = await under.fax.send(under.request());
  assert.is(result.providerSid, 'moved-1');
  assert.equal(provider.requests.map((r) => `${r.method} ${r.path}`), ['POST /faxes', 'POST /v2/faxes']);
  assert.is(JSON.parse(provider.requests[1]!.body.toString()).to, '+15551234567', 'a 307 keeps the body');
});

test.run();
