import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { WebhookRejectedError, type FaxWebhookRequest } from '../../../../core/sdk/index.js';
import { CONTRACT_VERSIONS } from '../../../../core/sdk/index.js';
import { validateManifest } from '../../../../core/manifest/index.js';
import { httpRuntimeDiagnostics } from '../../../../core/declarative/http-fax/index.js';
import { httpFaxManifest } from './manifest-fixture.js';
import { json, startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { JOB_ID, startHttpFax, type HttpFaxUnderTest } from './harness.js';

const SECRET = 'hook-secret-value';

const settings = {
  base_url: { type: 'string', required: true },
  hook_key: { type: 'string', secret: true },
};

function manifestWith(callback: unknown, sendTemplate: Record<string, string> = { to: '{{ to }}', notify: '{{ callback_url }}' }) {
  return httpFaxManifest({
    id: 'acme-hooks',
    settings,
    http: {
      actions: {
        send: { method: 'POST', url: '{{ settings.base_url }}/faxes', body: { kind: 'json', template: sendTemplate }, response: { job_id: 'id' } },
      },
      status_map: { delivered: 'SUCCESS', failed: 'FAILED', sending: 'in_progress' },
      callback,
    },
  });
}

const jsonCallback = { format: 'json', status: 'fax.state', provider_sid: 'fax.id', pages: 'fax.pages', error: 'fax.reason', signature: { header: 'X-Acme-Signature', secret: 'hook_key' } };

function webhook(body: string, headers: Record<string, string> = {}, query: Record<string, string> = { job_id: JOB_ID }, kind: 'callback' | 'inbound' = 'callback'): FaxWebhookRequest {
  return { kind, url: `http://127.0.0.1:8080/webhooks/acme-hooks/callback?job_id=${JOB_ID}`, rawBody: Buffer.from(body), contentType: 'application/json', headers, query };
}

const sign = (body: string, secret = SECRET) => createHmac('sha256', secret).update(body).digest('hex');

let provider: RecordingProvider;
let under: HttpFaxUnderTest;

test.before(async () => {
  provider = await startRecordingProvider();
  under = await startHttpFax(manifestWith(jsonCallback), { base_url: provider.origin, hook_key: SECRET });
});
test.after(async () => {
  await under.stop();
  await provider.close();
});

test('{{ callback_url }} is the generic callback route of this plugin, with the job id', async () => {
  provider.answer(json(200, { id: 'sid-9' }));
  await under.fax.send(under.request());
  const sent = JSON.parse(provider.requests.at(-1)!.body.toString('utf8'));
  assert.is(sent.notify, `http://127.0.0.1:8080/webhooks/acme-hooks/callback?job_id=${JOB_ID}`);
  assert.is(under.fax.pushesResults, true);
});

test('a signed JSON callback is verified with the secret setting and parsed by the manifest paths', async () => {
  const body = JSON.stringify({ fax: { id: 'sid-9', state: 'failed', pages: '2', reason: 'busy line' } });
  assert.is(await under.fax.verifyWebhook!(webhook(body, { 'x-acme-signature': sign(body) })), true);
  assert.is(await under.fax.verifyWebhook!(webhook(body, { 'x-acme-signature': sign(body).toUpperCase() })), true, 'hex case does not matter');
  assert.is(await under.fax.verifyWebhook!(webhook(body, { 'x-acme-signature': sign(body, 'another secret') })), false);
  assert.is(await under.fax.verifyWebhook!(webhook(`${body} `, { 'x-acme-signature': sign(body) })), false, 'the signature covers the raw body');
  assert.is(await under.fax.verifyWebhook!(webhook(body)), false, 'an unsigned callback is refused');
  assert.is(await under.fax.verifyWebhook!(webhook(body, { 'x-acme-signature': sign(body) }, {}, 'inbound')), false, 'a manifest provider takes no inbound faxes');
  assert.equal(await under.fax.parseCallback!(webhook(body)), { jobId: JOB_ID, status: 'FAILED', raw: 'failed', pages: 2, error: 'busy line', providerSid: 'sid-9' });
});

test('a status word the map lacks, and a callback without job id or status', async () => {
  const update = await under.fax.parseCallback!(webhook(JSON.stringify({ fax: { state: 'Delivered' } })));
  assert.equal(update, { jobId: JOB_ID, status: 'SUCCESS', raw: 'Delivered' });
  assert.throws(() => under.fax.parseCallback!(webhook(JSON.stringify({ fax: { state: 'sending' } }), {}, {})), /job_id/);
  assert.throws(() => under.fax.parseCallback!(webhook(JSON.stringify({ fax: {} }))), /no status at "fax\.state"/);
  assert.throws(() => under.fax.parseCallback!(webhook('not json')), /not JSON/);
});

test('a signature rule whose secret is not configured answers 503, never accepts', async () => {
  const unset = await startHttpFax(manifestWith(jsonCallback), { base_url: provider.origin });
  try {
    const body = JSON.stringify({ fax: { state: 'delivered' } });
    let err: unknown;
    try {
      await unset.fax.verifyWebhook!(webhook(body, { 'x-acme-signature': sign(body) }));
    } catch (e) {
      err = e;
    }
    assert.instance(err, WebhookRejectedError);
    assert.is((err as WebhookRejectedError).status, 503);
    assert.not.match((err as Error).message, SECRET);
  } finally {
    await unset.stop();
  }
});

test('a form callback may name the job in the body; without a signature rule any callback is taken', async () => {
  const form = await startHttpFax(manifestWith({ format: 'form', status: 'FaxStatus', job_id: 'Ref', provider_sid: 'FaxSid', pages: 'NumPages' }), { base_url: provider.origin });
  try {
    const request = webhook(new URLSearchParams({ FaxStatus: 'delivered', Ref: 'job-77', FaxSid: 'FX1', NumPages: '3' }).toString(), {}, {});
    assert.is(await form.fax.verifyWebhook!(request), true);
    assert.equal(await form.fax.parseCallback!(request), { jobId: 'job-77', status: 'SUCCESS', raw: 'delivered', pages: 3, providerSid: 'FX1' });
  } finally {
    await form.stop();
  }
});

test('a provider without a callback block takes no webhooks, and callback_url stays refused', () => {
  const polled = httpFaxManifest({
    settings,
    http: { actions: { send: { method: 'POST', url: '{{ settings.base_url }}/faxes', body: { kind: 'form', fields: { cb: '{{ callback_url }}' } } } }, status_map: {} },
  });
  assert.equal(httpRuntimeDiagnostics(polled).map((d) => [d.code, d.path]), [['template-unsupported', 'http.actions.send.body.fields.cb']]);
  assert.equal(httpRuntimeDiagnostics(manifestWith(jsonCallback)), []);
  const inStatus = manifestWith(jsonCallback);
  inStatus.http!.actions.status = { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}?cb={{ callback_url }}' };
  assert.match(httpRuntimeDiagnostics(inStatus)[0]!.message, /only the "send" action/);
});

test('the validator checks the callback block: its paths with the one response-path parser, its secret setting', () => {
  const check = (callback: unknown, extraSettings: Record<string, unknown> = {}) => {
    const raw = {
      manifestVersion: 1, id: 'acme-hooks', name: 'n', version: '1.0.0', description: '', author: 'a', host: '^0.1.0',
      provides: [{ kind: 'fax', contract: 'fax@^1' }], egress: ['127.0.0.1'], settings: { ...settings, ...extraSettings },
      http: { actions: { send: { method: 'POST', url: 'http://127.0.0.1/faxes' } }, status_map: {}, callback },
    };
    return validateManifest(raw, { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS }).diagnostics.map((d) => [d.code, d.path]);
  };
  assert.equal(check(jsonCallback), []);
  assert.equal(check({ ...jsonCallback, status: '[0]a' }), [['invalid-response-path', 'http.callback.status']]);
  assert.equal(check({ format: 'form', status: 'fax[status]' }), [], 'form fields are names, not paths');
  assert.equal(check({ ...jsonCallback, signature: { header: 'X-Sig', secret: 'nope' } }), [['callback-secret-unknown', 'http.callback.signature.secret']]);
  assert.equal(check({ ...jsonCallback, signature: { header: 'X-Sig', secret: 'base_url' } }), [['callback-secret-not-secret', 'http.callback.signature.secret']]);
});

test.run();
