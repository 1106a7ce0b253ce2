import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { DocumentTokens } from '../../../../../host/surfaces/fax/jobs/document-tokens.js';
import { json, postFax, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { gatewayDb } from '../../../../support/database.js';

/** Every status code of the spec's Errors table (and the 503 of an unusable backend), from real requests. */
let gw: TestGateway;
let locked: TestGateway;
const KEY = 'bootstrap-key-for-errors-test';

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true' });
  locked = await startGateway({ FAX_DISABLED: 'true', API_KEY: KEY });
});
test.after(async () => {
  await gw.close();
  await locked.close();
});

const detailOf = async (res: Response) => (await json(res)).detail as string;

test('POST /fax 202: accepted, stored as disabled when FAX_DISABLED', async () => {
  const res = await postFax(gw.url, '+15550101010', await makePdf(1));
  assert.is(res.status, 202);
  const job = await json(res);
  assert.is(job.status, 'disabled');
  assert.is(job.pages, 1);
  assert.ok(Date.parse(job.created_at));
});

test('POST /fax 400: an invalid number names the rule', async () => {
  for (const to of ['12345', 'abc', '+1 555 0101 0101 0101 0101 01', '']) {
    const res = await postFax(gw.url, to, 'hello');
    assert.is(res.status, 400, to);
    assert.match(await detailOf(res), /6 to 20 digits/);
  }
});

test('POST /fax 400: missing parameters and a PDF that cannot be parsed', async () => {
  const form = new FormData();
  form.set('to', '+15550101010');
  const noFile = await fetch(`${gw.url}/fax`, { method: 'POST', body: form });
  assert.is(noFile.status, 400);
  assert.match(await detailOf(noFile), /file/);
  const notMultipart = await fetch(`${gw.url}/fax`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.is(notMultipart.status, 400);
  const broken = await postFax(gw.url, '+15550101010', Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> garbage without xref'));
  assert.is(broken.status, 400);
  assert.match(await detailOf(broken), /PDF/i);
});

test('POST /fax 413: 10 MB + 1 byte is refused', async () => {
  const big = Buffer.alloc(10 * 1024 * 1024 + 1, 'a');
  const res = await postFax(gw.url, '+15550101010', big, {}, 'big.txt');
  assert.is(res.status, 413);
  assert.match(await detailOf(res), /too large/);
});

test('POST /fax 415: content that is no PDF, text or image', async () => {
  const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 0)]);
  const res = await postFax(gw.url, '+15550101010', zip, {}, 'looks.pdf');
  assert.is(res.status, 415);
});

test('POST /fax and GET /fax/{id} 401 without a valid API key when one is required', async () => {
  const res = await postFax(locked.url, '+15550101010', 'hi');
  assert.is(res.status, 401);
  assert.is(await detailOf(res), 'Invalid or missing API key (keys exist: send X-API-Key)');
  const wrong = await postFax(locked.url, '+15550101010', 'hi', { 'X-API-Key': 'nope' });
  assert.is(wrong.status, 401);
  const ok = await postFax(locked.url, '+15550101010', 'hi', { 'X-API-Key': KEY });
  assert.is(ok.status, 202);
  const { id } = await json(ok);
  assert.is((await fetch(`${locked.url}/fax/${id}`)).status, 401);
  assert.is((await fetch(`${locked.url}/fax/${id}`, { headers: { 'X-API-Key': KEY } })).status, 200);
});

test('GET /fax/{id} 404 for an unknown job', async () => {
  const res = await fetch(`${gw.url}/fax/00000000-0000-0000-0000-000000000000`);
  assert.is(res.status, 404);
  assert.match(await detailOf(res), /not found/);
});

test('GET /fax/{id}/pdf: 200 with a valid token, 403 invalid or expired, 404 unknown', async () => {
  const { id } = await json(await postFax(gw.url, '+15550101010', await makePdf(2)));
  const tokens = await DocumentTokens.load(gatewayDb(gw.gateway));
  const good = await fetch(`${gw.url}/fax/${id}/pdf?token=${tokens.issue('fax', id, 60_000)}`);
  assert.is(good.status, 200);
  assert.is(good.headers.get('content-type'), 'application/pdf');
  assert.is(Buffer.from(await good.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  assert.is((await fetch(`${gw.url}/fax/${id}/pdf`)).status, 403);
  assert.is((await fetch(`${gw.url}/fax/${id}/pdf?token=garbage`)).status, 403);
  assert.is((await fetch(`${gw.url}/fax/${id}/pdf?token=${tokens.issue('fax', id, -1000)}`)).status, 403, 'expired');
  assert.is((await fetch(`${gw.url}/fax/${id}/pdf?token=${tokens.issue('inbound', id, 60_000)}`)).status, 403, 'another scope');
  const other = await json(await postFax(gw.url, '+15550101010', 'other'));
  assert.is((await fetch(`${gw.url}/fax/${other.id}/pdf?token=${tokens.issue('fax', id, 60_000)}`)).status, 403, 'another job');
  assert.is((await fetch(`${gw.url}/fax/nope/pdf?token=x`)).status, 404);
});

test('POST /fax 503 when the selected backend is not active', async () => {
  const off = await startGateway({ FAX_BACKEND: 'no-such-backend' });
  try {
    const res = await postFax(off.url, '+15550101010', 'hello');
    assert.is(res.status, 503);
    assert.match(await detailOf(res), /no-such-backend/);
    const ready = await fetch(`${off.url}/health/ready`);
    assert.is(ready.status, 503);
    const report = await json(ready);
    assert.is(report.checks.find((c: any) => c.name === 'fax_backend').ok, false);
  } finally {
    await off.close();
  }
});

test('an oversized upload streamed without Content-Length also gets 413', async () => {
  const status = await new Promise<number>((resolve, reject) => {
    const boundary = 'xyzBOUNDARY';
    const req = request(`${gw.url}/fax`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n+15550101010\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n`);
    const chunk = Buffer.alloc(256 * 1024, 'b');
    let sent = 0;
    const pump = () => {
      while (sent < 12 * 1024 * 1024) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end(`\r\n--${boundary}--\r\n`);
    };
    pump();
  });
  assert.is(status, 413);
});

test.run();
