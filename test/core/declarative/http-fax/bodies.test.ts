import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { httpFaxManifest } from './manifest-fixture.js';
import { formOf, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
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


async function start(http: unknown, settings: Record<string, unknown>, values: Record<string, unknown>) {
  const manifest = httpFaxManifest({ http, settings });
  const under = await startHttpFax(manifest, { base_url: `${provider.origin}/v1`, ...values });
  running.push(under);
  return under;
}

/** application/x-www-form-urlencoded by hand: unreserved characters stay, the rest is %XX. */
const formEncoded = (text: string) => [...Buffer.from(text)].map((b) => (/[A-Za-z0-9*\-._]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

test('a json body is the template with each value in place, numbers kept as numbers, unset members left out', async () => {
  const under = await start(
    {
      actions: {
        send: {
          method: 'POST',
          url: '{{ settings.base_url }}/faxes',
          body: {
            kind: 'json',
            template: {
              to: '{{ to }}',
              from: '{{ from }}',
              document: { url: '{{ document_url }}', type: 'application/pdf' },
              reference: 'job {{ job_id }}',
              retries: '{{ settings.retries }}',
              cover: '{{ settings.cover_note }}',
              tags: ['switchboard', '{{ settings.cover_note }}'],
            },
          },
          response: { job_id: 'data.id' },
        },
      },
      status_map: {},
    },
    { base_url: { type: 'string', required: true }, from: { type: 'string' }, retries: { type: 'integer', default: 3 }, cover_note: { type: 'string' } },
    { from: '+15550001111' },
  );
  provider.answer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"id":"fx-1"}}'));
  const result = await under.fax.send(under.request('+15551234567'));
  assert.is(result.providerSid, 'fx-1');
  const [sent] = provider.requests;
  assert.is(sent!.method, 'POST');
  assert.is(sent!.url, '/v1/faxes');
  assert.is(sent!.headers['content-type'], 'application/json');
  assert.is(sent!.headers.accept, 'application/json');
  assert.is(
    sent!.body.toString('utf8'),
    `{"to":"+15551234567","from":"+15550001111","document":{"url":"${under.document.url}","type":"application/pdf"},"reference":"job job-0001","retries":3,"tags":["switchboard",null]}`,
  );
});

test('a form body sends the fields URL-encoded', async () => {
  const under = await start(
    {
      actions: {
        send: {
          method: 'POST',
          url: '{{ settings.base_url }}/faxes',
          body: { kind: 'form', fields: { to: '{{ to }}', 'content_url[]': '{{ document_url }}', reference: '{{ job_id }}' } },
          response: { job_id: 'data.id' },
        },
      },
      status_map: {},
    },
    { base_url: { type: 'string', required: true } },
    {},
  );
  provider.answer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true,"data":{"id":12345}}'));
  const result = await under.fax.send(under.request());
  assert.is(result.providerSid, '12345', 'a numeric id becomes its text');
  const [sent] = provider.requests;
  assert.is(sent!.method, 'POST');
  assert.is(sent!.url, '/v1/faxes');
  assert.is(sent!.headers['content-type'], 'application/x-www-form-urlencoded;charset=UTF-8');
  assert.is(
    sent!.body.toString('utf8'),
    `to=%2B15551234567&content_url%5B%5D=${formEncoded(under.document.url)}&reference=job-0001`,
  );
});

test('a multipart body carries the fields and the PDF as the file part', async () => {
  const under = await start(
    {
      actions: {
        send: {
          method: 'POST',
          url: '{{ settings.base_url }}/projects/{{ settings.project }}/faxes',
          body: { kind: 'multipart', fields: { to: '{{ to }}', reference: '{{ job_id }}' }, file_field: 'file' },
          response: { job_id: 'id', status: 'status' },
        },
      },
      status_map: { QUEUED: 'queued' },
    },
    { base_url: { type: 'string', required: true }, project: { type: 'string', required: true } },
    { project: 'p-77' },
  );
  provider.answer((_req, res) => void res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":"01HXYZ","status":"QUEUED"}'));
  const result = await under.fax.send(under.request());
  assert.equal(result, { providerSid: '01HXYZ', status: 'queued', raw: 'QUEUED' });
  const [sent] = provider.requests;
  assert.is(sent!.method, 'POST');
  assert.is(sent!.url, '/v1/projects/p-77/faxes');
  assert.match(String(sent!.headers['content-type']), /^multipart\/form-data; boundary=/);
  const form = await formOf(sent!);
  assert.equal(form.fields, { to: ['+15551234567'], reference: ['job-0001'] });
  assert.is(form.files.length, 1);
  assert.is(form.files[0]!.field, 'file');
  assert.is(form.files[0]!.filename, 'document.pdf');
  assert.is(form.files[0]!.mimeType, 'application/pdf');
  assert.ok(form.files[0]!.data.equals(under.pdf), 'the file part is the job PDF, byte for byte');
});

test('a body of kind none sends no body and no Content-Type', async () => {
  const under = await start(
    {
      actions: {
        send: { method: 'POST', url: '{{ settings.base_url }}/send?to={{ to }}', body: { kind: 'none' }, response: { job_id: 'sid' } },
        cancel: { method: 'DELETE', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}' },
      },
      status_map: {},
    },
    { base_url: { type: 'string', required: true } },
    {},
  );
  provider.answer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"sid":"s-9"}'));
  await under.fax.send(under.request());
  provider.answer((_req, res) => void res.writeHead(204).end());
  await under.fax.cancel!({ jobId: 'job-0001', to: '+15551234567', providerSid: 's-9', sentAt: new Date() });
  const [send, cancel] = provider.requests;
  assert.is(send!.url, '/v1/send?to=%2B15551234567');
  assert.is(send!.body.length, 0);
  assert.is(send!.headers['content-type'], undefined);
  assert.is(cancel!.method, 'DELETE');
  assert.is(cancel!.url, '/v1/faxes/s-9');
  assert.is(cancel!.body.length, 0);
  assert.is(cancel!.headers['content-type'], undefined);
});

test.run();
