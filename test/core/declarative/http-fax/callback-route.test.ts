import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startRecordingProvider, type RecordingProvider } from './recording-provider.js';
import { signedCallbackManifest } from './signed-callback-manifest.js';

// A manifest provider that is told where to call back and signs its callbacks; it has no status
// action, so only the callback can finish the job.
const ID = 'hookfax-e2e';
const HOOK_KEY = 'e2e-hook-key';

const manifest = signedCallbackManifest(ID, 'Hook fax', 'HOOKFAX');

let gw: TestGateway;
let provider: RecordingProvider;
let pluginsDir: string;

test.before(async () => {
  provider = await startRecordingProvider();
  provider.answer((_req, res) => void res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'hf-1' })));
  pluginsDir = tempDir('switchboard-http-fax-callback-');
  writeFileSync(path.join(pluginsDir, `${ID}.json`), JSON.stringify(manifest, null, 2));
  gw = await startGateway({ PLUGINS_PATH: pluginsDir, FAX_BACKEND: ID, HOOKFAX_BASE_URL: provider.origin, HOOKFAX_HOOK_KEY: HOOK_KEY });
});
test.after(async () => {
  await gw?.close();
  await provider.close();
  removeDir(pluginsDir);
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });

test('the provider is handed /webhooks/<id>/callback, and a signed callback there finishes the job', async () => {
  await until(async () => {
    const list = await json<{ plugins: Array<{ id: string; state: string }> }>(await fetch(`${gw.url}/plugins`));
    return list.plugins.find((p) => p.id === ID && p.state === 'active');
  }, 5000);
  const form = new FormData();
  form.append('to', '+15551234567');
  form.append('file', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'letter.pdf');
  const job = await json(await fetch(`${gw.url}/fax`, { method: 'POST', body: form, signal: AbortSignal.timeout(15_000) }));
  const sent = await until(async () => provider.requests.find((r) => r.method === 'POST' && r.path === '/faxes'), 10_000);
  const notify = new URL(JSON.parse(sent.body.toString('utf8')).notify);
  assert.is(notify.pathname, `/webhooks/${ID}/callback`);
  assert.is(notify.searchParams.get('job_id'), job.id);
  await until(async () => ((await json(await fetch(`${gw.url}/fax/${job.id}`))).provider_sid === 'hf-1' ? true : undefined), 10_000);

  const body = JSON.stringify({ id: 'hf-1', state: 'delivered', pages: 1 });
  const unsigned = await post(`${gw.url}${notify.pathname}${notify.search}`, body);
  assert.is(unsigned.status, 401);
  const forged = await post(`${gw.url}${notify.pathname}${notify.search}`, body, { 'x-hook-signature': createHmac('sha256', 'wrong').update(body).digest('hex') });
  assert.is(forged.status, 401);
  assert.is((await json(await fetch(`${gw.url}/fax/${job.id}`))).status === 'SUCCESS', false, 'refused callbacks change nothing');

  const signed = await post(`${gw.url}${notify.pathname}${notify.search}`, body, { 'x-hook-signature': createHmac('sha256', HOOK_KEY).update(body).digest('hex') });
  assert.is(signed.status, 200, await signed.clone().text());
  const done = await json(await fetch(`${gw.url}/fax/${job.id}`));
  assert.is(done.status, 'SUCCESS', JSON.stringify(done));
  assert.is(done.pages, 1);
});

test('a callback without its status word is malformed (400), one for another plugin\'s job is not found', async () => {
  const body = JSON.stringify({ id: 'hf-2' });
  const sign = (text: string) => createHmac('sha256', HOOK_KEY).update(text).digest('hex');
  const malformed = await post(`${gw.url}/webhooks/${ID}/callback?job_id=nope`, body, { 'x-hook-signature': sign(body) });
  assert.is(malformed.status, 400);
  const good = JSON.stringify({ id: 'hf-3', state: 'delivered' });
  const unknown = await post(`${gw.url}/webhooks/${ID}/callback?job_id=no-such-job`, good, { 'x-hook-signature': sign(good) });
  assert.is(unknown.status, 404);
});

test.run();
