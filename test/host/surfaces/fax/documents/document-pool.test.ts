import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument } from 'pdf-lib';
import { DomainError } from '../../../../../host/platform/errors/domain-error.js';
import { DocumentPool, InvalidDocumentError, normalizeToPdf, UnsupportedDocumentError } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf, samplePng, sampleTiff } from './samples.js';

// The pool runs the same document functions in worker threads: same answers, same errors,
// and a deadline from the document's size past which the thread is stopped.
const pools: DocumentPool[] = [];
const poolWith = (budget: { baseMs: number; msPerMb: number }, heapMb?: number) => {
  const pool = new DocumentPool({ threads: () => 2, budget: () => budget, ...(heapMb ? { heapMb } : {}) });
  pools.push(pool);
  return pool;
};
const roomy = { baseMs: 60_000, msPerMb: 0 };
/** A PDF header, one object and filler: the quick structure check gives up and pdf-lib's full parse grinds through it. */
const fillerPdf = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), Buffer.alloc(bytes, 'A')]);

test.after(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

test('a PDF is answered byte for byte with its pages, as normalizeToPdf answers it', async () => {
  const pdf = await samplePdf(3);
  const out = await poolWith(roomy).normalize(pdf, 'letter');
  assert.equal({ pages: out.pages, sourceType: out.sourceType }, { pages: 3, sourceType: 'pdf' });
  assert.ok(Buffer.isBuffer(out.pdf));
  assert.ok(out.pdf.equals(pdf));
});

test('a small well-formed PDF is checked without a thread; a large one, or one the quick check cannot read, goes to a thread', async () => {
  // No time at all for a thread's work: whatever reaches a thread is refused document_too_complex.
  const pool = poolWith({ baseMs: 0, msPerMb: 0 });
  const small = await samplePdf(2);
  const out = await pool.normalize(small, 'letter');
  assert.equal({ pages: out.pages, sourceType: out.sourceType }, { pages: 2, sourceType: 'pdf' });
  assert.ok(out.pdf.equals(small));
  const throughThread = async (bytes: Buffer) => ((await pool.normalize(bytes, 'letter').catch((e: unknown) => e)) as DomainError).code;
  assert.is(await throughThread(await samplePdf(60)), 'document_too_complex', 'over the inline size (about 42 KB)');
  assert.is(await throughThread(fillerPdf(1024)), 'document_too_complex', 'needs the full parse');
  // What the quick check can tell for certain is refused as the thread refuses it.
  const broken = Buffer.from(small.toString('latin1').replace('/Count 2', '/Count 0'), 'latin1');
  const refused = await pool.normalize(broken, 'letter').catch((e: unknown) => e);
  assert.instance(refused, InvalidDocumentError);
  assert.is((refused as Error).message, ((await normalizeToPdf(broken, { paper: 'letter' }).catch((e: unknown) => e)) as Error).message);
});

test('text and images are converted as in the event loop', async () => {
  const pool = poolWith(roomy);
  const text = Buffer.from('Referral letter\n\nPlease see the patient.\n'.repeat(200));
  const [direct, threaded] = await Promise.all([normalizeToPdf(text, { paper: 'a4' }), pool.normalize(text, 'a4')]);
  assert.equal({ pages: threaded.pages, sourceType: threaded.sourceType }, { pages: direct.pages, sourceType: direct.sourceType });
  assert.is((await PDFDocument.load(threaded.pdf)).getPageCount(), direct.pages);
  const png = await pool.normalize(await samplePng(), 'letter');
  assert.equal({ pages: png.pages, sourceType: png.sourceType }, { pages: 1, sourceType: 'png' });
  const tiff = await pool.imageToPdf(await sampleTiff(3), 'letter');
  assert.is(tiff.pages, 3);
  assert.is((await PDFDocument.load(tiff.pdf)).getPageCount(), 3);
  assert.equal(await pool.inspectPdf(await samplePdf(2)), { pages: 2 });
});

test('a cover page goes before every page of the document', async () => {
  const merged = await poolWith(roomy).withCover(await samplePdf(2), { template: 'FAX to {to}\\n{pages} pages', values: { to: '+15551230000', pages: 3, date: new Date() }, paper: 'letter' });
  assert.is((await PDFDocument.load(merged.pdf)).getPageCount(), 3);
  assert.equal(merged.undrawable, []);
});

test('document errors come back as the same errors', async () => {
  const pool = poolWith(roomy);
  const refused = async (bytes: Buffer) => {
    try {
      await pool.normalize(bytes, 'letter');
    } catch (err) {
      return err;
    }
    assert.unreachable('refused');
  };
  const broken = Buffer.from('%PDF-1.4\nnot really a pdf\n');
  const invalid = await refused(broken);
  assert.instance(invalid, InvalidDocumentError);
  const direct = await normalizeToPdf(broken, { paper: 'letter' }).catch((err: Error) => err);
  assert.is((invalid as Error).message, (direct as Error).message);
  assert.instance(await refused(Buffer.from([0x00, 0x01, 0x02, 0x03])), UnsupportedDocumentError);
});

test('past its budget a document is refused document_too_complex, and the pool goes on with a new thread', async () => {
  const pool = poolWith({ baseMs: 100, msPerMb: 0 });
  const started = Date.now();
  const err = await pool.normalize(fillerPdf(3 * 1024 * 1024), 'letter').catch((e: unknown) => e);
  assert.instance(err, DomainError);
  assert.is((err as DomainError).code, 'document_too_complex');
  assert.match((err as Error).message, /budget of 0\.1 s for 3\.0 MB/);
  // Stopped at its deadline, not when the parse would have ended (tens of seconds).
  assert.ok(Date.now() - started < 10_000, `refused after ${Date.now() - started} ms`);
  assert.equal((await pool.normalize(await samplePdf(1), 'letter')).pages, 1);
});

test('a document that needs more than the thread\'s heap is refused document_too_complex', async () => {
  const pool = poolWith(roomy, 16);
  const err = await pool.normalize(Buffer.alloc(8 * 1024 * 1024, 'many short lines of text\n'), 'letter').catch((e: unknown) => e);
  assert.instance(err, DomainError);
  assert.is((err as DomainError).code, 'document_too_complex');
  assert.match((err as Error).message, /more than 16 MB of memory/);
});

test.run();
