import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument } from 'pdf-lib';
import { inspectPdf, InvalidDocumentError } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf } from './samples.js';

async function rejects(pdf: Buffer, pattern: RegExp): Promise<void> {
  try {
    await inspectPdf(pdf);
    assert.unreachable('should be refused');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
    assert.match((err as Error).message, pattern);
  }
}

test('counts the pages of a real PDF', async () => {
  assert.equal(await inspectPdf(await samplePdf(3)), { pages: 3 });
});

test('a corrupt PDF (header, then junk) is an InvalidDocumentError', async () => {
  await rejects(Buffer.from('%PDF-1.7\n\x00\x01garbage that is not a PDF body\n%%EOF', 'latin1'), /cannot be parsed|no pages/);
});

test('a PDF cut in half is an InvalidDocumentError', async () => {
  const pdf = await samplePdf(2);
  await rejects(pdf.subarray(0, Math.floor(pdf.length / 3)), /cannot be parsed|no pages/);
});

test('a PDF without pages is an InvalidDocumentError', async () => {
  const empty = Buffer.from(await (await PDFDocument.create()).save({ addDefaultPage: false }));
  await rejects(empty, /no pages/);
});

test.run();
