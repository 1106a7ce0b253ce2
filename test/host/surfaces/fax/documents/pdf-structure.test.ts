import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { readPdfStructure } from '../../../../../host/surfaces/fax/documents/pdf-structure.js';
import { InvalidDocumentError } from '../../../../../host/surfaces/fax/documents/index.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';
import { samplePdf } from './samples.js';

// The bounded check must agree with pdf-lib's full parse wherever it answers, and answer
// undefined (so the full parse runs) wherever it cannot read the file.
const fullCount = async (pdf: Buffer) => (await PDFDocument.load(pdf, { updateMetadata: false })).getPageCount();

async function pdfLibMade(pages: number, useObjectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage();
  return Buffer.from(await doc.save({ useObjectStreams }));
}

/** Rewrites a PDF with ghostscript's pdfwrite, with passwords when given. */
function ghostscript(input: Buffer, passwords: string[] = []): Buffer {
  const dir = tempDir('pdf-structure-');
  try {
    writeFileSync(path.join(dir, 'in.pdf'), input);
    execFileSync('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=pdfwrite', ...passwords, `-sOutputFile=${path.join(dir, 'out.pdf')}`, path.join(dir, 'in.pdf')]);
    return readFileSync(path.join(dir, 'out.pdf'));
  } finally {
    removeDir(dir);
  }
}

test('classic cross-reference tables (pdfkit, ghostscript): the page count of the full parse', async () => {
  for (const pages of [1, 3, 12]) {
    const pdf = await samplePdf(pages);
    assert.equal(readPdfStructure(pdf), { pages: await fullCount(pdf) }, `pdfkit, ${pages} pages`);
    const rewritten = ghostscript(pdf);
    assert.equal(readPdfStructure(rewritten), { pages }, `ghostscript, ${pages} pages`);
  }
});

test('xref streams with the catalog inside an object stream (PDF 1.5): the page count of the full parse', async () => {
  for (const pages of [1, 7]) {
    const pdf = await pdfLibMade(pages, true);
    assert.ok(pdf.includes('/XRef'), 'the sample uses an xref stream');
    assert.ok(pdf.includes('/ObjStm'), 'the sample uses an object stream');
    assert.equal(readPdfStructure(pdf), { pages: await fullCount(pdf) });
  }
});

test('an inflate budget bounds what its compressed streams may inflate to together: past it the full parse is left to answer', async () => {
  const pdf = await pdfLibMade(40, true);
  assert.equal(readPdfStructure(pdf, { inflateBudget: 1024 * 1024 }), { pages: 40 });
  assert.is(readPdfStructure(pdf, { inflateBudget: 16 }), undefined, 'its xref and object streams inflate to more than 16 bytes');
  const classic = await samplePdf(1);
  assert.equal(readPdfStructure(classic, { inflateBudget: 0 }), { pages: 1 }, 'a classic table inflates nothing');
});

test('an incremental update: the newest page tree wins, as in the full parse', async () => {
  const pdf = await samplePdf(3);
  const text = pdf.toString('latin1');
  const pagesNum = Number(/\/Pages (\d+) 0 R/.exec(text)![1]);
  const rootNum = Number(/\/Root (\d+) 0 R/.exec(text)![1]);
  const firstKid = Number(/\/Kids \[(\d+) 0 R/.exec(text)![1]);
  const size = Number(/\/Size (\d+)/.exec(text)![1]);
  const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const object = `${pagesNum} 0 obj\n<< /Type /Pages /Count 1 /Kids [${firstKid} 0 R] >>\nendobj\n`;
  const objectAt = pdf.length + 1;
  const xrefAt = objectAt + object.length;
  const update =
    `\n${object}xref\n0 1\n0000000000 65535 f \n${pagesNum} 1\n${String(objectAt).padStart(10, '0')} 00000 n \n` +
    `trailer\n<< /Size ${size} /Root ${rootNum} 0 R /Prev ${previous} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  const updated = Buffer.concat([pdf, Buffer.from(update, 'latin1')]);
  assert.is(await fullCount(updated), 1, 'pdf-lib reads the update');
  assert.equal(readPdfStructure(updated), { pages: 1 });
});

test('an encrypted PDF is refused as encrypted', async () => {
  const encrypted = ghostscript(await samplePdf(1), ['-sOwnerPassword=owner', '-sUserPassword=user']);
  try {
    readPdfStructure(encrypted);
    assert.unreachable('should be refused');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
    assert.match((err as Error).message, /encrypted/);
  }
});

test('a page tree with no pages is refused', async () => {
  const empty = Buffer.from(await (await PDFDocument.create()).save({ addDefaultPage: false, useObjectStreams: false }));
  assert.throws(() => readPdfStructure(empty), (err: unknown) => err instanceof InvalidDocumentError && /no pages/.test((err as Error).message));
});

test('what it cannot read is left to the full parse: truncated, junk, a wrong startxref', async () => {
  const pdf = await samplePdf(2);
  assert.is(readPdfStructure(pdf.subarray(0, Math.floor(pdf.length / 2))), undefined, 'truncated');
  assert.is(readPdfStructure(Buffer.from('%PDF-1.7\n\x00\x01garbage\nstartxref\n9\n%%EOF\n', 'latin1')), undefined, 'junk');
  const text = pdf.toString('latin1').replace(/startxref\s+(\d+)/, (_m, n: string) => `startxref\n${Number(n) - 7}`);
  assert.is(readPdfStructure(Buffer.from(text, 'latin1')), undefined, 'startxref pointing into the wrong place');
});

test.run();
