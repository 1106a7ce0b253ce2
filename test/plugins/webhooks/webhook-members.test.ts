import { createHmac } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WebhookRejectedError, type FaxInboundNotice, type FaxWebhookKind, type FaxWebhookRequest } from 'switchboard/sdk';
import { providerAWebhooks } from '../../../plugins/providera/webhook.js';
import { providerBWebhooks } from '../../../plugins/providerb/webhook.js';
import { sipInboundHook } from '../../../plugins/sip/inbound-hook.js';
import { pbxbResultHook } from '../../../plugins/pbxb/result-hook.js';
import { requireConfig as providerAConfig } from '../../../plugins/providera/settings.js';
import { requireConfig as providerBConfig } from '../../../plugins/providerb/settings.js';
import { removeDir, tempDir } from '../../support/gateway.js';

/** Each provider's webhook members, as the host calls them: raw body and headers in, verdicts out. */

const hex = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');
function request(kind: FaxWebhookKind, body: string, headers: Record<string, string> = {}, query: Record<string, string> = {}): FaxWebhookRequest {
  return { kind, url: 'https://gw.example/webhooks/x/' + kind, rawBody: Buffer.from(body), contentType: 'application/json', headers, query };
}
async function rejection(fn: () => unknown): Promise<WebhookRejectedError> {
  try {
    await fn();
  } catch (err) {
    assert.instance(err, WebhookRejectedError);
    return err as WebhookRejectedError;
  }
  throw new Error('expected a WebhookRejectedError');
}

const A_BASE = { baseUrl: 'https://api.provider-a.example/v2', apiKey: 'k', apiSecret: 'a-secret', verifySignature: false, sendMode: 'url' as const, timeoutMs: 1000, inboundVerifySignature: true };

test('provider A: inbound notices are signed unless inboundVerifySignature is off; callbacks follow verifySignature', async () => {
  const hooks = providerAWebhooks(providerAConfig(A_BASE));
  const body = JSON.stringify({ fax: { id: 7, to: '+15550001111', file_url: 'https://api.provider-a.example/media/7.pdf' } });
  assert.ok(await hooks.verifyWebhook(request('inbound', body, { 'x-providera-signature': hex(body, 'a-secret') })));
  assert.not.ok(await hooks.verifyWebhook(request('inbound', body, { 'x-providera-signature': hex(body, 'other') })));
  assert.not.ok(await hooks.verifyWebhook(request('inbound', body)));
  assert.ok(await hooks.verifyWebhook(request('callback', 'fax%5Bstatus%5D=success')), 'verifySignature off: callbacks unsigned');
  const open = providerAWebhooks(providerAConfig({ ...A_BASE, inboundVerifySignature: false, verifySignature: true }));
  assert.ok(await open.verifyWebhook(request('inbound', body)));
  assert.not.ok(await open.verifyWebhook(request('callback', 'fax%5Bstatus%5D=success')));
});

test('provider A: parseInbound reads the notice; the media host defaults to the base URL host, or mediaHosts', async () => {
  const body = JSON.stringify({ fax: { id: 7, from: '+15557654321', to: '+15550001111', num_pages: 2, file_url: 'https://api.provider-a.example/media/7.pdf' } });
  const notice = (await providerAWebhooks(providerAConfig(A_BASE)).parseInbound(request('inbound', body))) as FaxInboundNotice;
  assert.equal(notice, { providerId: '7', from: '+15557654321', to: '+15550001111', status: 'received', pages: 2, document: { url: 'https://api.provider-a.example/media/7.pdf', allowedHosts: ['api.provider-a.example'] } });
  const listed = (await providerAWebhooks(providerAConfig({ ...A_BASE, mediaHosts: ' media.example:8443, cdn.example ' })).parseInbound(request('inbound', body))) as FaxInboundNotice;
  assert.equal((listed.document as { allowedHosts: readonly string[] }).allowedHosts, ['media.example:8443', 'cdn.example']);
  assert.is((await rejection(() => providerAWebhooks(providerAConfig(A_BASE)).parseInbound(request('inbound', 'nope')))).status, 400);
  const bad = await rejection(() => providerAWebhooks(providerAConfig(A_BASE)).parseInbound(request('inbound', '{"fax": {"id": 1}}')));
  assert.is(bad.status, 422);
  assert.match(bad.message, /fax\.file_url/);
});

const B_BASE = { baseUrl: 'https://fax.provider-b.example/v3', projectId: 'p', apiKey: 'k', apiSecret: 's', sendMode: 'url' as const, timeoutMs: 1000 };
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

test('provider B: Basic auth (401 basic_auth) and the HMAC are checked only when configured', async () => {
  const body = '{"id": "B1", "file_url": "https://fax.provider-b.example/m/1"}';
  const none = providerBWebhooks(providerBConfig(B_BASE));
  assert.ok(await none.verifyWebhook(request('inbound', body)), 'nothing configured: open, as the spec allows');
  const both = providerBWebhooks(providerBConfig({ ...B_BASE, inboundBasicUser: 'u', inboundBasicPass: 'p', inboundHmacSecret: 'h' }));
  const signed = { 'x-providerb-signature': hex(body, 'h') };
  assert.ok(await both.verifyWebhook(request('inbound', body, { authorization: basic('u', 'p'), ...signed })));
  const err = await rejection(() => both.verifyWebhook(request('inbound', body, signed)));
  assert.is(err.status, 401);
  assert.is(err.reason, 'basic_auth');
  await rejection(() => both.verifyWebhook(request('inbound', body, { authorization: basic('u', 'x'), ...signed })));
  assert.not.ok(await both.verifyWebhook(request('inbound', body, { authorization: basic('u', 'p'), 'x-providerb-signature': hex(body, 'x') })));
  const notice = (await both.parseInbound(request('inbound', body))) as FaxInboundNotice;
  assert.equal(notice.document, { url: 'https://fax.provider-b.example/m/1', allowedHosts: ['fax.provider-b.example'] });
});

test('sip: X-Internal-Secret checked (503 unset, 401 wrong); tiff_path read only inside the real spool', async () => {
  const work = tempDir('switchboard-sip-hook-');
  try {
    const spool = path.join(work, 'spool');
    mkdirSync(spool);
    mkdirSync(path.join(work, 'outside'));
    writeFileSync(path.join(spool, 'in.tiff'), Buffer.alloc(64, 7));
    writeFileSync(path.join(work, 'outside', 'x.tiff'), Buffer.alloc(64, 1));
    symlinkSync(path.join(work, 'outside', 'x.tiff'), path.join(spool, 'link.tiff'));
    const unset = await rejection(() => sipInboundHook({ spoolDir: spool }).verifyWebhook(request('inbound', '{}', { 'x-internal-secret': 'x' })));
    assert.equal([unset.status, unset.reason], [503, 'no_secret']);
    const hook = sipInboundHook({ inboundSecret: 'pbx-secret', spoolDir: spool });
    assert.is((await rejection(() => hook.verifyWebhook(request('inbound', '{}', { 'x-internal-secret': 'pbx-secreT' })))).status, 401);
    assert.is((await rejection(() => hook.verifyWebhook(request('inbound', '{}')))).status, 401);
    assert.ok(await hook.verifyWebhook(request('inbound', '{}', { 'x-internal-secret': 'pbx-secret' })));
    const body = (tiff: string) => JSON.stringify({ tiff_path: tiff, to_number: '+15550001111', uniqueid: 'u1', faxpages: '2' });
    for (const [tiff, status] of [[path.join(work, 'outside', 'x.tiff'), 403], ['../outside/x.tiff', 403], ['link.tiff', 403], ['missing.tiff', 400], ['.', 403]] as const) {
      assert.is((await rejection(() => hook.parseInbound(request('inbound', body(tiff))))).status, status, tiff);
    }
    const notice = (await hook.parseInbound(request('inbound', body('in.tiff')))) as FaxInboundNotice;
    assert.equal([notice.providerId, notice.pages, notice.status], ['u1', 2, 'received']);
    const read = (notice.document as { read(max: number): Promise<Buffer> }).read;
    assert.is((await read(64)).length, 64);
    assert.is((await rejection(() => read(63))).status, 413);
    const noSpool = await rejection(() => sipInboundHook({ inboundSecret: 's' }).parseInbound(request('inbound', body('in.tiff'))));
    assert.equal([noSpool.status, noSpool.reason], [503, 'no_spool']);
  } finally {
    removeDir(work);
  }
});

test("pbxb: Faxbot's FreeSWITCH result hook body becomes a final update; the secret is required", async () => {
  const hook = pbxbResultHook({ internalSecret: 'fs-secret' });
  assert.ok(await hook.verifyWebhook(request('callback', '{}', { 'x-internal-secret': 'fs-secret' })));
  assert.is((await rejection(() => hook.verifyWebhook(request('callback', '{}', { 'x-internal-secret': 'nope' })))).status, 401);
  assert.is((await rejection(() => pbxbResultHook({}).verifyWebhook(request('callback', '{}', { 'x-internal-secret': 'fs-secret' })))).status, 503);
  // As the dialplan's curl sends it: fax_status is ${fax_success}, pages a bare number.
  const ok = '{"job_id":"job-1","fax_status":"1","fax_result_text":"OK","fax_document_transferred_pages":3,"uuid":"0b7c-uuid"}';
  const success = await hook.parseCallback(request('callback', ok));
  assert.equal(success, { jobId: 'job-1', status: 'SUCCESS', pages: 3, raw: 'result hook 1 uuid 0b7c-uuid' });
  const failed = await hook.parseCallback(request('callback', JSON.stringify({ job_id: 'job-2', fax_status: '0', fax_result_text: 'The call dropped prematurely', fax_result_code: 49, fax_document_transferred_pages: 0, uuid: 'u' })));
  assert.equal([failed.status, failed.error, failed.pages, failed.providerSid], ['FAILED', 'The call dropped prematurely (code 49)', 0, undefined]);
  assert.is((await hook.parseCallback(request('callback', '{"job_id":"j","fax_status":"failed"}'))).status, 'FAILED');
  assert.is((await rejection(() => hook.parseCallback(request('callback', '{"job_id":"j","fax_status":"maybe"}')))).status, 422);
  assert.is((await rejection(() => hook.parseCallback(request('callback', '{"fax_status":"1"}')))).status, 422);
  // An empty ${fax_document_transferred_pages} leaves `"pages":}`: not JSON.
  assert.is((await rejection(() => hook.parseCallback(request('callback', '{"job_id":"j","fax_status":"1","fax_document_transferred_pages":}')))).status, 400);
});

test.run();
