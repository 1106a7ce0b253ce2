import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, postFax, removeDir, startGateway, tempDir, type TestGateway } from '../../../../support/gateway.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';

/**
 * Each provider's inbound path works with its inbound settings alone: no AMI login for the PBX
 * hook, no send credentials for provider A or B, and FAX_BACKEND naming one of them.
 */
const PBX_SECRET = 'pbx-only-secret-4f1a';
const A_SECRET = 'pa-only-secret-77d0';
const B_HMAC = 'pb-only-hmac-1c9e';
const FROM = '+15557650000';
const TO = '+15550002222';

let gw: TestGateway;
let work: string;
let spool: string;
let media: Server;
let mediaHost: string;

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');
const post = (p: string, body: string, headers: Record<string, string>) => fetch(`${gw.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

test.before(async () => {
  work = tempDir('switchboard-inbound-only-');
  spool = path.join(work, 'spool');
  mkdirSync(spool);
  const pdf = await makePdf(2);
  writeFileSync(path.join(work, 'two.pdf'), pdf);
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=tiffg4', '-r204x196', `-sOutputFile=${path.join(spool, 'in.tiff')}`, path.join(work, 'two.pdf')]);
  media = createServer((req, res) => (req.url === '/fax.pdf' ? res.writeHead(200).end(pdf) : res.writeHead(404).end()));
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', () => r()));
  mediaHost = `127.0.0.1:${(media.address() as AddressInfo).port}`;
  gw = await startGateway({
    INBOUND_ENABLED: 'true',
    FAX_BACKEND: 'sip',
    PBX_INBOUND_SECRET: PBX_SECRET,
    PBX_SPOOL_DIR: spool,
    PROVIDERA_API_SECRET: A_SECRET,
    PROVIDERA_MEDIA_HOSTS: mediaHost,
    PROVIDERB_INBOUND_HMAC_SECRET: B_HMAC,
    PROVIDERB_MEDIA_HOSTS: mediaHost,
  });
});
test.after(async () => {
  await gw?.close();
  await new Promise<void>((r) => media.close(() => r()));
  removeDir(work);
});

test('providers with only inbound settings are active, listed as serving inbound only', async () => {
  const { plugins } = await json(await fetch(`${gw.url}/plugins`));
  for (const id of ['sip', 'providera', 'providerb']) {
    const plugin = plugins.find((p: { id: string }) => p.id === id);
    assert.is(plugin.state, 'active', `${id}: ${plugin.last_error}`);
    assert.equal(plugin.directions, ['inbound'], id);
  }
  // Not a fax provider: no directions at all.
  assert.is(plugins.find((p: { id: string }) => p.id === 'storage-local').directions, null);
});

test('/health/ready shows the directions of each fax provider', async () => {
  const report = await json(await fetch(`${gw.url}/health/ready`));
  const sip = report.checks.find((c: { name: string }) => c.name === 'plugin:sip');
  assert.equal(sip.info.directions, ['inbound']);
  assert.ok(sip.detail.includes('SIP_AMI_USERNAME'), sip.detail);
});

test('the internal PBX hook stores a fax without AMI credentials', async () => {
  const body = JSON.stringify({ tiff_path: path.join(spool, 'in.tiff'), to_number: TO, from_number: FROM, uniqueid: 'only-1' });
  assert.is((await post('/_internal/pbx/inbound', body, { 'x-internal-secret': 'wrong' })).status, 401);
  const res = await post('/_internal/pbx/inbound', body, { 'x-internal-secret': PBX_SECRET });
  assert.is(res.status, 200, await res.clone().text());
  assert.is((await json(res)).duplicate, false);
});

test('provider A and provider B inbound notices are stored without their send credentials', async () => {
  const a = JSON.stringify({ fax: { id: 9001, from: FROM, to: TO, status: 'success', file_url: `http://${mediaHost}/fax.pdf` } });
  let res = await post('/providera-inbound', a, { 'x-providera-signature': sign(a, A_SECRET) });
  assert.is(res.status, 200, await res.clone().text());
  assert.is((await post('/providera-inbound', a, { 'x-providera-signature': sign(a, 'wrong') })).status, 401);
  const b = JSON.stringify({ id: 'B-only-1', from: FROM, to: TO, status: 'COMPLETED', file_url: `http://${mediaHost}/fax.pdf` });
  res = await post('/providerb-inbound', b, { 'x-providerb-signature': sign(b, B_HMAC) });
  assert.is(res.status, 200, await res.clone().text());
  assert.is((await post('/providerb-inbound', b, { 'x-providerb-signature': sign(b, 'wrong') })).status, 401);
});

test('sending through a provider that serves inbound only answers 503 saying so', async () => {
  const res = await postFax(gw.url, '+15551234567', 'hello');
  assert.is(res.status, 503);
  const body = await json(res);
  assert.is(body.code, 'fax_backend_unavailable');
  assert.ok(body.detail.includes('serves inbound only'), body.detail);
});

test('a status callback to an inbound-only provider is not taken', async () => {
  const res = await fetch(`${gw.url}/webhooks/providera/callback?job_id=x`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'fax[id]=1&fax[status]=success' });
  assert.is(res.status, 404);
});

test.run();
