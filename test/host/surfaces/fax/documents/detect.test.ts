import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DETECT_SAMPLE_BYTES, detectDocumentType } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf, sampleJpeg, samplePng, sampleTiff } from './samples.js';

test('a pdfkit PDF is pdf', async () => {
  assert.is(detectDocumentType(await samplePdf(1)), 'pdf');
});

test('a PDF saved under a .txt name is still pdf: the name is never consulted', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchboard-detect-'));
  try {
    const file = path.join(dir, 'letter.txt');
    await writeFile(file, await samplePdf(1));
    assert.is(detectDocumentType(await readFile(file)), 'pdf');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('sharp PNG, JPEG and TIFF (both byte orders) are recognised', async () => {
  assert.is(detectDocumentType(await samplePng()), 'png');
  assert.is(detectDocumentType(await sampleJpeg()), 'jpeg');
  assert.is(detectDocumentType(await sampleTiff(1)), 'tiff');
  // Motorola byte order, as some scanners write it
  const mm = Buffer.concat([Buffer.from([0x4d, 0x4d, 0x00, 0x2a]), Buffer.alloc(16)]);
  assert.is(detectDocumentType(mm), 'tiff');
});

test('UTF-8 text with tabs, CRLF and form feeds is text', () => {
  assert.is(detectDocumentType(Buffer.from('Dear Dr. Müller,\r\n\tthe results are attached.\f\nPage two — ¡olé! 日本語\n', 'utf8')), 'text');
});

test('a sample cut in the middle of a multi-byte character is still text', () => {
  const text = Buffer.from('x'.repeat(DETECT_SAMPLE_BYTES - 1) + 'é and more', 'utf8');
  // byte DETECT_SAMPLE_BYTES - 1 is the first byte of the two-byte é
  assert.is(text[DETECT_SAMPLE_BYTES - 1], 0xc3);
  assert.is(detectDocumentType(text), 'text');
  assert.is(detectDocumentType(text.subarray(0, DETECT_SAMPLE_BYTES)), 'text');
});

test('latin-1 bytes (not UTF-8) are not text', () => {
  assert.is(detectDocumentType(Buffer.from('Caf\xe9 cr\xe8me br\xfbl\xe9e\n', 'latin1')), null);
});

test('binary junk, NUL bytes, escape sequences and empty input are nothing', () => {
  const junk = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7919 + 13) % 256));
  assert.is(detectDocumentType(junk), null);
  assert.is(detectDocumentType(Buffer.from('plain text\0with a NUL', 'utf8')), null);
  assert.is(detectDocumentType(Buffer.from('\x1b[31mred\x1b[0m', 'utf8')), null);
  assert.is(detectDocumentType(Buffer.alloc(0)), null);
  // A ZIP (a .docx) is not accepted as anything
  assert.is(detectDocumentType(Buffer.from('PK\x03\x04\x14\x00\x06\x00', 'latin1')), null);
});

test.run();
