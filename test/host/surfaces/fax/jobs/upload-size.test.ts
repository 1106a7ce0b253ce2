import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, postFax, startGateway, type TestGateway } from '../../../../support/gateway.js';

/** MAX_FILE_SIZE_MB is the largest file accepted: only a file over it answers 413. */
const LIMIT = 1024 * 1024;
let gw: TestGateway;
let pdf: Buffer;

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true', MAX_FILE_SIZE_MB: '1' });
  pdf = await makePdf(1);
});
test.after(async () => {
  await gw.close();
});

// A valid PDF of exactly `size` bytes: readers ignore whitespace after %%EOF.
function pdfOfSize(size: number): Buffer {
  return Buffer.concat([pdf, Buffer.alloc(size - pdf.length, 0x0a)]);
}

for (const [label, size] of [['limit - 1', LIMIT - 1], ['exactly the limit', LIMIT]] as const) {
  test(`a file of ${label} bytes is accepted`, async () => {
    const res = await postFax(gw.url, '+15551230000', pdfOfSize(size), {}, 'doc.pdf');
    const body = await json(res);
    assert.is(res.status, 202, JSON.stringify(body));
    assert.is(body.status, 'disabled');
  });
}

test('a file one byte over the limit answers 413 with {"detail"} and leaves no temp file', async () => {
  const res = await postFax(gw.url, '+15551230000', pdfOfSize(LIMIT + 1), {}, 'doc.pdf');
  assert.is(res.status, 413);
  const body = await json(res);
  assert.is(body.code, 'payload_too_large');
  assert.match(body.detail, /1 MB/);
  assert.equal(readdirSync(path.join(gw.dataDir, 'tmp')), []);
});

test.run();
