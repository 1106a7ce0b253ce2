import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FaxReference } from 'switchboard/sdk';
import { httpFaxManifest } from './manifest-fixture.js';
import { json, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
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

const ref = (providerSid?: string): FaxReference => ({ jobId: 'job-0001', to: '+15551234567', sentAt: new Date(), ...(providerSid ? { providerSid } : {}) });

async function start(http: Record<string, unknown>) {
  const manifest = httpFaxManifest({
    http: {
      actions: {
        send: { method: 'POST', url: '{{ settings.base_url }}/faxes', response: { job_id: 'faxes[0].id', status: 'faxes[0].state', pages: 'faxes[0].pages' } },
        status: {
          method: 'GET',
          url: '{{ settings.base_url }}/faxes/{{ provider_sid }}',
          response: { status: 'fax.state', pages: 'fax.pages', error: 'fax.failure.reason' },
        },
      },
      status_map: { accepted: 'queued', transmitting: 'in_progress', delivered: 'SUCCESS', busy: 'FAILED' },
      ...http,
    },
    settings: { base_url: { type: 'string', required: true } },
  });
  const under = await startHttpFax(manifest, { base_url: provider.origin });
  running.push(under);
  return under;
}

test('send reads the job id, status and pages at their paths and maps the status word', async () => {
  const under = await start({});
  provider.answer(json(202, { faxes: [{ id: 'FX-77', state: 'accepted', pages: 3 }] }));
  assert.equal(await under.fax.send(under.request()), { providerSid: 'FX-77', status: 'queued', raw: 'accepted', pages: 3 });
});

test('status maps provider words through status_map, ignoring case, with pages and error', async () => {
  const under = await start({});
  provider.answer(json(200, { fax: { state: 'BUSY', pages: '2', failure: { reason: 'line busy' } } }));
  assert.equal(await under.fax.status(ref('FX-77')), { providerSid: 'FX-77', status: 'FAILED', raw: 'BUSY', pages: 2, error: 'line busy' });
  assert.is(provider.requests[0]!.method, 'GET');
  assert.is(provider.requests[0]!.url, '/faxes/FX-77');
  provider.answer(json(200, { fax: { state: 'delivered', pages: 2 } }));
  assert.equal(await under.fax.status(ref('FX-77')), { providerSid: 'FX-77', status: 'SUCCESS', raw: 'delivered', pages: 2 });
});

test('an unknown status word without default_status is in_progress and keeps the raw word', async () => {
  const under = await start({});
  provider.answer(json(200, { fax: { state: 'warming-up' } }));
  assert.equal(await under.fax.status(ref('FX-1')), { providerSid: 'FX-1', status: 'in_progress', raw: 'warming-up' });
});

test('an unknown status word takes default_status when the manifest has one', async () => {
  const under = await start({ default_status: 'queued' });
  provider.answer(json(200, { fax: { state: 'warming-up' } }));
  assert.equal(await under.fax.status(ref('FX-1')), { providerSid: 'FX-1', status: 'queued', raw: 'warming-up' });
});

test('status is null without a provider id (nothing sent) and when the provider answers 404', async () => {
  const under = await start({});
  assert.is(await under.fax.status(ref()), null);
  assert.is(provider.requests.length, 0);
  provider.answer(json(404, { error: 'no such fax' }));
  assert.is(await under.fax.status(ref('FX-gone')), null);
  assert.is(provider.requests.length, 1);
});

test('a manifest without a status action refuses to poll, and without a cancel action has no cancel', async () => {
  const manifest = httpFaxManifest({
    http: { actions: { send: { method: 'POST', url: '{{ settings.base_url }}/faxes' } }, status_map: {} },
    settings: { base_url: { type: 'string', required: true } },
  });
  const under = await startHttpFax(manifest, { base_url: provider.origin });
  running.push(under);
  const err = await under.fax.status(ref('FX-1')).catch((e: Error) => e);
  assert.is((err as Error).name, 'RejectedError');
  assert.match((err as Error).message, /no "status" action/);
  assert.is(under.fax.cancel, undefined);
  assert.is(provider.requests.length, 0);
});

test('send without a response map reads the id at "id" and reports queued', async () => {
  const manifest = httpFaxManifest({
    http: { actions: { send: { method: 'POST', url: '{{ settings.base_url }}/faxes' } }, status_map: {} },
    settings: { base_url: { type: 'string', required: true } },
  });
  const under = await startHttpFax(manifest, { base_url: provider.origin });
  running.push(under);
  provider.answer(json(200, { id: 'plain-1', status: 'whatever' }));
  assert.equal(await under.fax.send(under.request()), { providerSid: 'plain-1', status: 'queued' });
});

test.run();
