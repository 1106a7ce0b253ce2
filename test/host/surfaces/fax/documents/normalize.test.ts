import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument } from 'pdf-lib';
import { InvalidDocumentError, normalizeToPdf, UnsupportedDocumentError } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf, samplePng, sampleTiff } from './samples.js';

test('a PDF is kept byte for byte, with its page count', async () => {
  const pdf = await samplePdf(2);
  const out = await normalizeToPdf(pdf, { paper: 'letter' });
  assert.is(out.sourceType, 'pdf');
  assert.is(out.pages, 2);
  assert.ok(out.pdf.equals(pdf));
});

test('text is typeset into a PDF', async () => {
  const out = await normalizeToPdf(Buffer.from('Referral letter\n\nPlease see the patient.\n'), { paper: 'a4' });
  assert.is(out.sourceType, 'text');
  assert.is(out.pages, 1);
  assert.is((await PDFDocument.load(out.pdf)).getPageCount(), 1);
});

test('images become PDFs, one page per image page', async () => {
  const png = await normalizeToPdf(await samplePng(), { paper: 'letter' });
  assert.is(png.sourceType, 'png');
  assert.is(png.pages, 1);
  const tiff = await normalizeToPdf(await sampleTiff(3), { paper: 'letter' });
  assert.is(tiff.sourceType, 'tiff');
  assert.is((await PDFDocument.load(tiff.pdf)).getPageCount(), 3);
});

test('an unknown type is UnsupportedDocumentError (415)', async () => {
  try {
    await normalizeToPdf(Buffer.from('PK\x03\x04\x14\x00\x06\x00 a docx', 'latin1'), { paper: 'letter' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, UnsupportedDocumentError);
  }
});

test('a corrupt PDF is InvalidDocumentError (400)', async () => {
  try {
    await normalizeToPdf(Buffer.from('%PDF-1.5\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF'), { paper: 'letter' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
  }
});

test('text whose head is UTF-8 but whose tail is not is InvalidDocumentError', async () => {
  const bytes = Buffer.concat([Buffer.from('a'.repeat(10_000)), Buffer.from([0xe9, 0x0a])]);
  try {
    await normalizeToPdf(bytes, { paper: 'letter' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
  }
});

test.run();
