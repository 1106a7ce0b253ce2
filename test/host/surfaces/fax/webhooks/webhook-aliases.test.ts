import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { startRecordingProvider, type RecordingProvider } from '../../../../core/declarative/http-fax/recording-provider.js';
import { signedCallbackManifest } from '../../../../core/declarative/http-fax/signed-callback-manifest.js';

// A dropped manifest provider that declares its own fixed callback path; the host routes it and
// hands it to the provider as the callback URL.
const ID = 'aliasfax';
const HOOK_KEY = 'alias-hook-key';
const ALIAS = { path: '/aliasfax-callback', kind: 'callback', contentType: 'application/json', summary: 'Status callback of the alias fax test provider' };

const manifest = (extra: Record<string, unknown> = {}) => signedCallbackManifest(ID, 'Alias fax', 'ALIASFAX', { webhookAliases: [ALIAS], ...extra });

let gw: TestGateway;
let provider: RecordingProvider;
let pluginsDir: string;

test.before(async () => {
  provider = await startRecordingProvider();
  provider.answer((_req, res) => void res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'af-1' })));
  pluginsDir = tempDir('switchboard-webhook-aliases-');
  writeFileSync(path.join(pluginsDir, `${ID}.json`), JSON.stringify(manifest(), null, 2));
  // Two manifests whose aliases must be refused: one under the host's /api, one a built-in's path.
  writeFileSync(path.join(pluginsDir, 'shadowfax.json'), JSON.stringify(manifest({ id: 'shadowfax', webhookAliases: [{ ...ALIAS, path: '/api/shadow' }] })));
  writeFileSync(path.join(pluginsDir, 'thieffax.json'), JSON.stringify(manifest({ id: 'thieffax', webhookAliases: [{ ...ALIAS, path: '/providera-callback' }] })));
  gw = await startGateway({ PLUGINS_PATH: pluginsDir, FAX_BACKEND: ID, ALIASFAX_BASE_URL: provider.origin, ALIASFAX_HOOK_KEY: HOOK_KEY });
  await until(async () => (await json<{ plugins: Array<{ id: string; state: string }> }>(await fetch(`${gw.url}/plugins`))).plugins.find((p) => p.id === ID && p.state === 'active'), 5000);
});
test.after(async () => {
  await gw?.close();
  await provider.close();
  removeDir(pluginsDir);
});

const post = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });

test('a webhook alias declared in a dropped manifest is routed and documented in /openapi.json', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const op = doc.paths[ALIAS.path]?.post;
  assert.ok(op, 'the alias path is in the API document');
  assert.is(op.operationId, 'postAliasfaxCallback');
  assert.is(op.summary, ALIAS.summary);
  assert.ok(op.requestBody.content[ALIAS.contentType]);
  assert.is(doc.paths['/api/shadow'], undefined);
  assert.ok(doc.paths['/providera-callback']?.post, 'the built-in keeps its path');
});

test('the provider is handed the alias as callback URL, and a signed callback there finishes the job', async () => {
  const form = new FormData();
  form.append('to', '+15551234567');
  form.append('file', new Blob([new Uint8Array(await makePdf(1))], { type: 'application/pdf' }), 'letter.pdf');
  const job = await json(await fetch(`${gw.url}/fax`, { method: 'POST', body: form, signal: AbortSignal.timeout(15_000) }));
  const sent = await until(async () => provider.requests.find((r) => r.method === 'POST' && r.path === '/faxes'), 10_000);
  const notify = new URL(JSON.parse(sent.body.toString('utf8')).notify);
  assert.is(notify.pathname, ALIAS.path);
  assert.is(notify.searchParams.get('job_id'), job.id);
  await until(async () => ((await json(await fetch(`${gw.url}/fax/${job.id}`))).provider_sid === 'af-1' ? true : undefined), 10_000);
  const body = JSON.stringify({ id: 'af-1', state: 'delivered', pages: 1 });
  assert.is((await post(`${gw.url}${notify.pathname}${notify.search}`, body)).status, 401, 'the plugin checks the signature, as on /webhooks');
  const signed = await post(`${gw.url}${notify.pathname}${notify.search}`, body, { 'x-hook-signature': createHmac('sha256', HOOK_KEY).update(body).digest('hex') });
  assert.is(signed.status, 200, await signed.clone().text());
  assert.is((await json(await fetch(`${gw.url}/fax/${job.id}`))).status, 'SUCCESS');
});

test('a manifest whose alias shadows a host route or takes another plugin\'s path is refused with a diagnostic', async () => {
  const plugins = (await json<{ plugins: Array<{ id: string; state: string; diagnostics: Array<{ code: string; path: string }> }> }>(await fetch(`${gw.url}/plugins`))).plugins;
  const shadow = plugins.find((p) => p.id === 'shadowfax')!;
  assert.is(shadow.state, 'rejected');
  assert.equal(shadow.diagnostics.map((d) => [d.code, d.path]), [['invalid-webhook-alias', 'webhookAliases.0.path']]);
  const thief = plugins.find((p) => p.id === 'thieffax')!;
  assert.is(thief.state, 'rejected');
  assert.equal(thief.diagnostics.map((d) => [d.code, d.path]), [['webhook-alias-taken', 'webhookAliases.0.path']]);
});

test('an alias is dispatched by the manifests of now: once its manifest drops it, the path takes nothing', async () => {
  writeFileSync(path.join(pluginsDir, `${ID}.json`), JSON.stringify(manifest({ webhookAliases: [] }), null, 2));
  await gw.gateway.kernel.rescan();
  const res = await post(`${gw.url}${ALIAS.path}?job_id=x`, '{}');
  assert.is(res.status, 404);
  assert.is((await json(res)).code, 'webhook_not_taken');
});

test.run();
