import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startPlugin } from 'switchboard/sdk/testing';
import { createHttpFaxPlugin } from '../../../../core/declarative/http-fax/index.js';
import { httpFaxManifest } from './manifest-fixture.js';
import { formOf, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { startHttpFax, type HttpFaxUnderTest } from './harness.js';

/** Quotes, braces, a placeholder, &, =, %, a bad escape, a backslash, CR/LF and NUL. */
const TO = '+1555"},"evil":{"x":1},"to":"{{ secrets.token }}&to=2=3%20%zz\\\r\nX-Injected: yes\u0000end';
const NOTE = `note'"}{ & = % ; / ? # ../..\r\nSet-Cookie: a=b`;
const TOKEN = 'tok"en}{&k=v%41\r\n\u0000';

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
  note: { type: 'string' },
  token: { type: 'string', secret: true },
};

async function start(send: Record<string, unknown>, values: Record<string, unknown> = { note: NOTE, token: TOKEN }, extra: Record<string, unknown> = {}) {
  const manifest = httpFaxManifest({ http: { actions: { send: { method: 'POST', ...send }, ...extra }, status_map: {} }, settings: SETTINGS });
  const under = await startHttpFax(manifest, { base_url: provider.origin, ...values });
  running.push(under);
  return under;
}

test('values land in a JSON body as string values: the structure is the template, nothing else', async () => {
  const under = await start({
    url: '{{ settings.base_url }}/faxes',
    body: { kind: 'json', template: { to: '{{ to }}', note: 'note: {{ settings.note }}', key: '{{ secrets.token }}', nested: { list: ['{{ to }}'] } } },
  });
  await under.fax.send(under.request(TO));
  const body = JSON.parse(provider.requests[0]!.body.toString('utf8'));
  assert.equal(Object.keys(body), ['to', 'note', 'key', 'nested']);
  assert.is(body.to, TO, 'the placeholder inside the value was not expanded');
  assert.is(body.note, `note: ${NOTE}`);
  assert.is(body.key, TOKEN);
  assert.equal(body.nested, { list: [TO] });
});

test('values land in a form body as form values: the field set is the template', async () => {
  const under = await start({
    url: '{{ settings.base_url }}/faxes',
    body: { kind: 'form', fields: { to: '{{ to }}', note: '{{ settings.note }}', key: '{{ secrets.token }}' } },
  });
  await under.fax.send(under.request(TO));
  const form = await formOf(provider.requests[0]!);
  assert.equal(form.fields, { to: [TO], note: [NOTE], key: [TOKEN] });
});

test('values land in a multipart body as field values: the parts are the template', async () => {
  const under = await start({
    url: '{{ settings.base_url }}/faxes',
    body: { kind: 'multipart', fields: { to: '{{ to }}', note: '{{ settings.note }}' }, file_field: 'file' },
  });
  await under.fax.send(under.request(TO));
  const form = await formOf(provider.requests[0]!);
  assert.equal(form.fields, { to: [TO], note: [NOTE] });
  assert.equal(form.files.map((f) => f.field), ['file']);
});

test('values land in the URL path and query percent-encoded: the path segments and parameters are the template', async () => {
  const under = await start({
    url: '{{ settings.base_url }}/notes/{{ settings.note }}/send?to={{ to }}&v=1',
    query: { key: '{{ secrets.token }}', label: 'n:{{ settings.note }}' },
  });
  await under.fax.send(under.request(TO));
  const sent = provider.requests[0]!;
  const segments = sent.path.split('/');
  assert.is(segments.length, 4, `path ${sent.path}`);
  assert.is(segments[1], 'notes');
  assert.is(decodeURIComponent(segments[2]!), NOTE);
  assert.is(segments[3], 'send');
  assert.equal([...sent.query.keys()], ['to', 'v', 'key', 'label']);
  assert.is(sent.query.get('to'), TO);
  assert.is(sent.query.get('v'), '1');
  assert.is(sent.query.get('key'), TOKEN);
  assert.is(sent.query.get('label'), `n:${NOTE}`);
});

test('a value that would be a ".." path segment is refused and nothing is sent', async () => {
  const under = await start(
    { url: '{{ settings.base_url }}/faxes' },
    { note: NOTE, token: TOKEN },
    { status: { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}/status' } },
  );
  const err = await under.fax.status({ jobId: 'j', to: '+1555', providerSid: '..', sentAt: new Date() }).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /path segment/);
  assert.is(provider.requests.length, 0);
});

test('header values without control characters are sent exactly', async () => {
  const plain = `a"b'c}{&d=e%20f;g`;
  const under = await start({ url: '{{ settings.base_url }}/faxes', headers: { 'X-Note': 'n={{ settings.note }}', 'X-To': '{{ to }}' } }, { note: plain });
  await under.fax.send(under.request(plain));
  assert.is(provider.requests[0]!.headers['x-note'], `n=${plain}`);
  assert.is(provider.requests[0]!.headers['x-to'], plain);
  assert.is(provider.requests[0]!.headers['set-cookie'], undefined);
});

test('CR/LF or NUL in a header value refuses the call, naming the placeholder, and nothing is sent', async () => {
  const cases: Array<{ send: Record<string, unknown>; values?: Record<string, unknown>; to?: string; names: RegExp }> = [
    { send: { headers: { 'X-To': '{{ to }}' } }, to: 'x\r\nX-Injected: yes', names: /header "X-To".*\{\{ to \}\}/ },
    { send: { headers: { 'X-Note': 'n={{ settings.note }}' } }, names: /header "X-Note".*settings\.note/ },
    { send: { auth: { kind: 'bearer', token: '{{ secrets.token }}' } }, names: /bearer token.*secrets\.token/ },
    { send: { auth: { kind: 'api_key_header', header: 'X-Key', value: '{{ secrets.token }}' } }, values: { token: 'abc\u0000def' }, names: /X-Key/ },
  ];
  for (const c of cases) {
    const under = await start({ url: '{{ settings.base_url }}/faxes', ...c.send }, c.values ?? { note: NOTE, token: TOKEN });
    const err = await under.fax.send(under.request(c.to ?? '+15551234567')).catch((e: Error) => e);
    assert.is((err as Error).name, 'RejectedError');
    assert.match((err as Error).message, c.names);
    assert.match((err as Error).message, /control character/);
    assert.not.ok((err as Error).message.includes('Injected'), 'the value is not quoted in the message');
  }
  assert.is(provider.requests.length, 0);
});

test('a base URL setting carrying a query or credentials puts the plugin in needs-config (ConfigError on base_url)', async () => {
  const manifest = httpFaxManifest({
    http: { actions: { send: { method: 'POST', url: '{{ settings.base_url }}/faxes' } }, status_map: {} },
    settings: SETTINGS,
  });
  for (const base of [`${provider.origin}/v1?x=`, `http://user:pw@127.0.0.1:1`, `${provider.origin}/v1#frag`, 'javascript:alert(1)']) {
    const err = await startPlugin(createHttpFaxPlugin(manifest), { settings: { base_url: base }, egress: ['127.0.0.1'] }).catch((e: Error) => e);
    assert.is((err as Error).name, 'ConfigError', base);
    assert.is((err as { field?: string }).field, 'base_url');
  }
  assert.is(provider.requests.length, 0);
});

test('a header whose literal text breaks HTTP fails the call before anything is sent', async () => {
  const under = await start({ url: '{{ settings.base_url }}/faxes', headers: { 'X-Note': 'line one\r\nX-Injected: yes' }, body: { kind: 'none' } });
  const err = await under.fax.send(under.request('+15550001111')).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /X-Note/);
  assert.is(provider.requests.length, 0);
});

test.run();
