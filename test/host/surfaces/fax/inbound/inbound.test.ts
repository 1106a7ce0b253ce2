import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, tempDir, removeDir, type TestGateway } from '../../../../support/gateway.js';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { AmiFake } from '../../../../fakes/ami-fake.js';
import { gatewayDb } from '../../../../support/database.js';

const BOOTSTRAP = 'bootstrap-inbound-0c4e8d1f';
const A_SECRET = 'pa-inbound-secret-5e2a7b90';
const B_USER = 'pbuser';
const B_PASS = 'pb-pass-77c1e4d2';
const B_HMAC = 'pb-hmac-secret-a93f0e61';
const PBX_SECRET = 'pbx-secret-1d6b2c8e';
const FROM = '+15557654321';
const TO = '+15550001111';
const DOC_TEXT = 'Confidential page';

interface Media {
  url: string;
  host: string;
  requests: string[];
  server: Server;
}

async function mediaServer(address: string, files: Record<string, Buffer>): Promise<Media> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `http://127.0.0.2:${(otherMedia.server.address() as AddressInfo).port}/fax.pdf` }).end();
      return;
    }
    const body = files[req.url ?? ''];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, address, () => r()));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${address}:${port}`, host: `${address}:${port}`, requests, server };
}

let gw: TestGateway;
let ami: AmiFake;
let media: Media;
let otherMedia: Media;
let spool: string;
let outside: string;
let tiff: Buffer;
let pdf: Buffer;

const sign = (body: string, secret: string) => createHmac('sha256', secret).update(body).digest('hex');
const post = (p: string, body: string, hdrs: Record<string, string> = {}) => fetch(`${gw.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...hdrs }, body });
const get = (p: string, key = BOOTSTRAP) => fetch(`${gw.url}${p}`, { headers: { 'x-api-key': key } });

function providerA(id: number, file: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ fax: { id, from: FROM, to: TO, num_pages: 3, status: 'success', file_url: file, ...extra } });
}

test.before(async () => {
  const work = tempDir('switchboard-inbound-');
  pdf = await makePdf(2);
  const pdf3 = path.join(work, 'three.pdf');
  writeFileSync(pdf3, await makePdf(3));
  execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=tiffg4', '-r204x196', `-sOutputFile=${path.join(work, 'three.tiff')}`, pdf3]);
  tiff = readFileSync(path.join(work, 'three.tiff'));
  spool = path.join(work, 'spool');
  outside = path.join(work, 'outside');
  mkdirSync(spool);
  mkdirSync(outside);
  writeFileSync(path.join(spool, 'in.tiff'), tiff);
  writeFileSync(path.join(outside, 'secret.tiff'), tiff);
  symlinkSync(path.join(outside, 'secret.tiff'), path.join(spool, 'link.tiff'));
  media = await mediaServer('127.0.0.1', { '/fax.pdf': pdf, '/fax.tiff': tiff, '/notes.txt': Buffer.from(DOC_TEXT), '/big.pdf': Buffer.alloc(2 * 1024 * 1024 + 10, 1) });
  otherMedia = await mediaServer('127.0.0.2', { '/fax.pdf': pdf });
  ami = await AmiFake.start();
  gw = await startGateway({
    API_KEY: BOOTSTRAP,
    INBOUND_ENABLED: 'true',
    AUDIT_LOG_ENABLED: 'true',
    AUDIT_LOG_FILE: path.join(work, 'audit.log'),
    FAX_BACKEND: 'providerb',
    MAX_FILE_SIZE_MB: '2',
    // provider A: secret and media host come from its plugin settings (base URL host)
    PROVIDERA_BASE_URL: `${media.url}/v2`,
    PROVIDERA_API_KEY: 'pa-key',
    PROVIDERA_API_SECRET: A_SECRET,
    // provider B and the sip plugin serve their hooks only while active: their send settings too
    PROVIDERB_BASE_URL: 'https://fax.provider-b.example/v3',
    PROVIDERB_PROJECT_ID: 'proj',
    PROVIDERB_API_KEY: 'pb-key',
    PROVIDERB_API_SECRET: 'pb-api-secret-0d9e',
    SIP_AMI_PORT: String(ami.port),
    SIP_AMI_USERNAME: 'switchboard',
    SIP_AMI_PASSWORD: 'amisecret',
    PROVIDERB_MEDIA_HOSTS: `${media.host}, example.invalid`,
    PROVIDERB_INBOUND_BASIC_USER: B_USER,
    PROVIDERB_INBOUND_BASIC_PASS: B_PASS,
    PROVIDERB_INBOUND_HMAC_SECRET: B_HMAC,
    PBX_INBOUND_SECRET: PBX_SECRET,
    PBX_SPOOL_DIR: spool,
  });
  (globalThis as { workDir?: string }).workDir = work;
});
test.after(async () => {
  await gw?.close();
  await ami?.close();
  for (const m of [media, otherMedia]) if (m) await new Promise<void>((r) => m.server.close(() => r()));
  removeDir((globalThis as { workDir?: string }).workDir!);
});

/** Every hook is tested on the spec's path and on the generic route: they must behave alike. */
const ROUTES = [
  { label: 'spec path', offset: 0, a: '/providera-inbound', b: '/providerb-inbound', pbx: '/_internal/pbx/inbound' },
  { label: 'generic route', offset: 5000, a: '/webhooks/providera/inbound', b: '/webhooks/providerb/inbound', pbx: '/webhooks/sip/inbound' },
];

for (const r of ROUTES) {
  test(`provider A (${r.label}): a good signature stores the fax; a bad or missing one answers 401`, async () => {
    const body = providerA(101 + r.offset, `${media.url}/fax.pdf`);
    let res = await post(r.a, body, { 'x-providera-signature': ` ${sign(body, A_SECRET).toUpperCase()} ` });
    assert.is(res.status, 200, await res.clone().text());
    const first = await json(res);
    assert.is(first.duplicate, false);
    res = await post(r.a, body, { 'x-providera-signature': sign(body, 'wrong') });
    assert.is(res.status, 401);
    assert.is((await json(res)).detail, 'invalid or missing signature');
    assert.is((await post(r.a, body)).status, 401);
    const stored = await json(await get(`/inbound/${first.id}`));
    assert.is(stored.provider, 'providera');
    assert.is(stored.provider_id, String(101 + r.offset));
    assert.is(stored.from, FROM);
    assert.is(stored.pages, 2);
    assert.is(stored.source_type, 'pdf');
  });

  test(`provider A (${r.label}): a replay answers 200 with the same record and fetches nothing`, async () => {
    const body = providerA(202 + r.offset, `${media.url}/fax.pdf`);
    const headers = { 'x-providera-signature': sign(body, A_SECRET) };
    const first = await json(await post(r.a, body, headers));
    const fetched = media.requests.length;
    const again = await post(r.a, body, headers);
    assert.is(again.status, 200);
    const second = await json(again);
    assert.is(second.id, first.id);
    assert.is(second.duplicate, true);
    assert.is(media.requests.length, fetched);
    const rows = await gatewayDb(gw.gateway).selectFrom('inbound_faxes').selectAll().where('provider_id', '=', String(202 + r.offset)).execute();
    assert.is(rows.length, 1);
  });

  test(`provider A (${r.label}): a media URL on another host (or redirecting there) is refused and never requested`, async () => {
    for (const url of [`${otherMedia.url}/fax.pdf`, `${media.url.replace('127.0.0.1', 'localhost')}/fax.pdf`, `${media.url}/redirect`, 'file:///etc/passwd']) {
      const body = providerA(300 + r.offset + url.length, url);
      const res = await post(r.a, body, { 'x-providera-signature': sign(body, A_SECRET) });
      assert.is(res.status, 422, url);
    }
    assert.is(otherMedia.requests.length, 0);
    const count = await gatewayDb(gw.gateway).selectFrom('inbound_faxes').select((eb) => eb.fn.countAll<number>().as('n')).where('provider_id', 'like', `${3 + r.offset / 1000}%`).executeTakeFirst();
    assert.is(Number(count?.n), 0);
  });

  test(`provider A (${r.label}): documents over MAX_FILE_SIZE_MB, or neither PDF nor TIFF, are refused`, async () => {
    let body = providerA(401 + r.offset, `${media.url}/big.pdf`);
    assert.is((await post(r.a, body, { 'x-providera-signature': sign(body, A_SECRET) })).status, 413);
    body = providerA(402 + r.offset, `${media.url}/notes.txt`);
    assert.is((await post(r.a, body, { 'x-providera-signature': sign(body, A_SECRET) })).status, 422);
    body = '{"fax": {"id": 1}}';
    assert.is((await post(r.a, body, { 'x-providera-signature': sign(body, A_SECRET) })).status, 422);
    body = 'not json';
    assert.is((await post(r.a, body, { 'x-providera-signature': sign(body, A_SECRET) })).status, 400);
  });

  test(`provider B (${r.label}): Basic auth and HMAC both checked; a multi-page TIFF becomes a PDF with the same pages`, async () => {
    const body = JSON.stringify({ id: `B-1${r.label}`, from: FROM, to: TO, num_pages: 3, status: 'COMPLETED', file_url: `${media.url}/fax.tiff` });
    const basic = `Basic ${Buffer.from(`${B_USER}:${B_PASS}`).toString('base64')}`;
    let res = await post(r.b, body, { 'x-providerb-signature': sign(body, B_HMAC) });
    assert.is(res.status, 401);
    assert.is((await json(res)).detail, 'invalid or missing credentials');
    assert.is((await post(r.b, body, { authorization: `Basic ${Buffer.from(`${B_USER}:nope`).toString('base64')}`, 'x-providerb-signature': sign(body, B_HMAC) })).status, 401);
    res = await post(r.b, body, { authorization: basic, 'x-providerb-signature': sign(body, 'bad') });
    assert.is(res.status, 401);
    assert.is((await json(res)).detail, 'invalid or missing signature');
    res = await post(r.b, body, { authorization: basic, 'x-providerb-signature': sign(body, B_HMAC) });
    assert.is(res.status, 200, await res.clone().text());
    const { id } = await json(res);
    const record = await json(await get(`/inbound/${id}`));
    assert.is(record.provider, 'providerb');
    assert.is(record.pages, 3);
    assert.is(record.source_type, 'tiff');
    const pdfRes = await fetch(`${gw.url}${record.pdf_url}`);
    assert.is(pdfRes.status, 200);
    const doc = await PDFDocument.load(Buffer.from(await pdfRes.arrayBuffer()));
    assert.is(doc.getPageCount(), 3);
    const replay = await post(r.b, body, { authorization: basic, 'x-providerb-signature': sign(body, B_HMAC) });
    assert.is((await json(replay)).id, id);
    // provider B's media hosts are its own setting: provider A's base URL host is not among them
    const elsewhere = JSON.stringify({ id: `B-2${r.label}`, file_url: `${otherMedia.url}/fax.pdf` });
    assert.is((await post(r.b, elsewhere, { authorization: basic, 'x-providerb-signature': sign(elsewhere, B_HMAC) })).status, 422);
  });

  test(`PBX hook (${r.label}): secret checked, tiff_path must resolve inside the spool, idempotent on uniqueid`, async () => {
    const u = (n: number) => `pbx-${n + r.offset}`;
    const body = (tiffPath: string, uniqueid = u(1)) => JSON.stringify({ tiff_path: tiffPath, to_number: TO, from_number: FROM, faxstatus: 'OK', faxpages: 3, uniqueid });
    assert.is((await post(r.pbx, body(path.join(spool, 'in.tiff')), { 'x-internal-secret': 'wrong' })).status, 401);
    assert.is((await post(r.pbx, body(path.join(spool, 'in.tiff')))).status, 401);
    const secret = { 'x-internal-secret': PBX_SECRET };
    assert.is((await post(r.pbx, body(path.join(outside, 'secret.tiff'), u(2)), secret)).status, 403);
    assert.is((await post(r.pbx, body(path.join(spool, '..', 'outside', 'secret.tiff'), u(3)), secret)).status, 403);
    assert.is((await post(r.pbx, body(path.join(spool, 'link.tiff'), u(4)), secret)).status, 403, 'a symlink out of the spool');
    assert.is((await post(r.pbx, body(path.join(spool, 'missing.tiff'), u(5)), secret)).status, 400);
    assert.is((await post(r.pbx, '{"tiff_path": "in.tiff"}', secret)).status, 422);
    assert.is((await post(r.pbx, 'nope', secret)).status, 400);
    const res = await post(r.pbx, body(path.join(spool, 'in.tiff')), secret);
    assert.is(res.status, 200, await res.clone().text());
    const { id } = await json(res);
    const again = await json(await post(r.pbx, body(path.join(spool, 'in.tiff')), secret));
    assert.is(again.id, id);
    assert.is(again.duplicate, true);
    const record = await json(await get(`/inbound/${id}`));
    assert.is(record.pages, 3);
    assert.is(record.provider, 'sip');
  });
}

test('the spec path and the generic route are one: a fax stored through one is a replay on the other', async () => {
  const body = providerA(9001, `${media.url}/fax.pdf`);
  const headers = { 'x-providera-signature': sign(body, A_SECRET) };
  const first = await json(await post('/providera-inbound', body, headers));
  const second = await json(await post('/webhooks/providera/inbound', body, headers));
  assert.is(second.id, first.id);
  assert.is(second.duplicate, true);
});

test('generic route: an unknown plugin, or one that takes no inbound faxes, is 404; a bad plugin id 400', async () => {
  let res = await post('/webhooks/nosuch/inbound', '{}');
  assert.is(res.status, 404);
  res = await post('/webhooks/storage-local/inbound', '{}');
  assert.is(res.status, 404);
  res = await post('/webhooks/providerc/inbound', '{}');
  assert.is(res.status, 503, 'providerc waits for its settings here: it may take webhooks once active');
  res = await post('/webhooks/Bad..Id/inbound', '{}');
  assert.ok(res.status === 400 || res.status === 422, String(res.status));
});

test('GET /inbound lists newest first with filters and cursors; numbers masked without inbound:read', async () => {
  const mint = async (scopes: string[]) =>
    (await json(await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'x-api-key': BOOTSTRAP, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'l', scopes }) }))).token as string;
  const lister = await mint(['inbound:list']);
  const reader = await mint(['inbound:list', 'inbound:read']);
  let res = await get('/inbound?limit=2', lister);
  assert.is(res.status, 200);
  const text = await res.text();
  assert.not.match(text, FROM.slice(1));
  const page = JSON.parse(text);
  assert.is(page.faxes.length, 2);
  assert.is(page.faxes[0].from, '***4321');
  const rest = await json(await get(`/inbound?limit=50&cursor=${page.next_cursor}`, lister));
  assert.is(rest.faxes.length + 2, 9, 'four faxes on each route, and one on both');
  const full = await json(await get(`/inbound?status=COMPLETED`, reader));
  assert.is(full.faxes.length, 2);
  assert.is(full.faxes[0].from, FROM);
  assert.is((await json(await get(`/inbound?to=${encodeURIComponent(TO)}`, reader))).faxes.length, 9);
  // Filtering by number would confirm what the masked listing hides: it needs inbound:read.
  const probe = await get(`/inbound?from=${encodeURIComponent(FROM)}`, lister);
  assert.is(probe.status, 403);
  assert.match((await json(probe)).detail, /inbound:read/);
  assert.is((await get('/inbound?since=yesterday', reader)).status, 400);
  // the PDF by key needs inbound:read; a bad token is refused
  const id = page.faxes[0].id;
  assert.is((await get(`/inbound/${id}/pdf`, reader)).status, 200);
  assert.is((await get(`/inbound/${id}/pdf`, lister)).status, 403);
  assert.is((await fetch(`${gw.url}/inbound/${id}/pdf?token=1.bad`)).status, 403);
  assert.is((await fetch(`${gw.url}/inbound/${id}/pdf`)).status, 401);
  assert.is((await get('/inbound/nope', reader)).status, 404);
});

test('with INBOUND_ENABLED off every inbound route answers 404 "inbound is disabled"', async () => {
  const off = await startGateway({});
  try {
    for (const [method, p] of [['POST', '/providera-inbound'], ['POST', '/providerb-inbound'], ['POST', '/_internal/pbx/inbound'], ['POST', '/webhooks/providera/inbound'], ['POST', '/webhooks/sip/inbound'], ['GET', '/inbound'], ['GET', '/inbound/x'], ['GET', '/inbound/x/pdf']] as const) {
      const res = await fetch(`${off.url}${p}`, { method, ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}) });
      assert.is(res.status, 404, p);
      assert.is((await json(res)).detail, 'inbound is disabled');
    }
  } finally {
    await off.close();
  }
});

test('audit and log lines hold no full number, no document text and no secret', async () => {
  await gw.gateway.audit.flush();
  const events = (await gatewayDb(gw.gateway).selectFrom('audit_events').select('event').execute()).map((r) => r.event);
  for (const e of ['inbound_received', 'inbound_read', 'inbound_pdf_served', 'inbound_rejected']) assert.ok(events.includes(e), e);
  const file = readFileSync(path.join((globalThis as { workDir?: string }).workDir!, 'audit.log'), 'utf8');
  const everything = [file, ...gw.logs].join('\n');
  for (const n of [FROM, TO]) assert.not.match(everything, n.slice(1));
  for (const s of [A_SECRET, B_PASS, B_HMAC, PBX_SECRET, BOOTSTRAP, DOC_TEXT, 'sbk_']) assert.not.match(everything, s);
});

test.run();
