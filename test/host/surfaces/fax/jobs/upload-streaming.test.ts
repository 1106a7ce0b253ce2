import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { postFax, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { SPILL_BYTES } from '../../../../../host/surfaces/fax/documents/upload-receiver.js';

// The upload is streamed to disk as it arrives, never held whole: bytes sent so far are already
// in the temp file while the request is still open, and an upload over the limit is refused
// before its sender has finished. (Memory figures: bench/upload-memory.bench.ts.)
const LIMIT_MB = 4;
const MB = 1024 * 1024;
let gw: TestGateway;
let tmpDir: string;

const partFiles = () => (existsSync(tmpDir) ? readdirSync(tmpDir).filter((f) => f.endsWith('.part')) : []);
const partBytes = () => partFiles().reduce((n, f) => n + (existsSync(path.join(tmpDir, f)) ? statSync(path.join(tmpDir, f)).size : 0), 0);

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true', MAX_FILE_SIZE_MB: String(LIMIT_MB), LOG_LEVEL: 'warn' });
  tmpDir = path.join(gw.dataDir, 'tmp');
});
test.after(async () => {
  await gw?.close();
});

/** Opens a chunked multipart upload (no content-length, so only the bytes themselves can tell its size). */
function openUpload(): { req: ClientRequest; response: Promise<IncomingMessage>; send(bytes: number): Promise<void> } {
  const boundary = 'streamBOUNDARY';
  const req = request(`${gw.url}/fax`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  response.catch(() => {});
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n+15550103333\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.txt"\r\nContent-Type: text/plain\r\n\r\n`);
  const chunk = Buffer.alloc(64 * 1024, 'c');
  return {
    req,
    response,
    async send(bytes) {
      for (let sent = 0; sent < bytes; sent += chunk.length) {
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
    },
  };
}

test('bytes of an unfinished upload are already on disk', async () => {
  const upload = openUpload();
  try {
    await upload.send(2 * MB);
    // Still open, nothing answered: a gateway buffering the upload would have written nothing yet.
    const onDisk = await until(() => (partBytes() >= 1.5 * MB ? partBytes() : undefined), 10_000, 20);
    assert.ok(onDisk >= 1.5 * MB, `${onDisk} bytes on disk`);
    assert.is(partFiles().length, 1);
  } finally {
    upload.req.destroy();
  }
  await until(() => partFiles().length === 0, 5000, 20).catch(() => undefined);
  assert.equal(partFiles(), [], 'an abandoned upload leaves no temp file');
});

test('an upload over the limit is refused with 413 before its sender finishes, and leaves nothing', async () => {
  const upload = openUpload();
  try {
    // Send past the limit and keep the request open (never end it): the answer must come anyway.
    void upload.send(LIMIT_MB * MB + 256 * 1024).catch(() => {});
    const bounded = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer before the upload ended')), 10_000).unref());
    const res = await Promise.race([upload.response, bounded]);
    assert.is(res.statusCode, 413);
    res.resume();
  } finally {
    upload.req.destroy();
  }
  await until(() => partFiles().length === 0, 5000, 20).catch(() => undefined);
  assert.equal(partFiles(), [], 'no temp file is left behind');
});

test('a complete upload under the limit is accepted and its temp file is gone', async () => {
  const res = await postFax(gw.url, '+15550103333', 'a short text fax');
  assert.is(res.status, 202, await res.clone().text());
  assert.equal(partFiles(), []);
});

test('uploads below and above the in-memory size are stored byte for byte', async () => {
  for (const padding of [1000, SPILL_BYTES + 100_000]) {
    const doc = await PDFDocument.create();
    doc.addPage();
    // Incompressible padding: the stored PDF must be the upload itself, whatever path it took.
    doc.setSubject(randomBytes(padding / 2).toString('hex'));
    const pdf = Buffer.from(await doc.save());
    const res = await postFax(gw.url, '+15550103333', pdf, {}, 'padded.pdf');
    assert.is(res.status, 202, await res.clone().text());
    const { id } = (await res.json()) as { id: string };
    assert.ok(readFileSync(path.join(gw.dataDir, 'storage', 'fax', id, 'document.pdf')).equals(pdf), `${pdf.length} bytes stored intact`);
  }
  assert.equal(partFiles(), []);
});

test.run();
