import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument } from 'pdf-lib';
import { textToPdf } from '../../../../../host/surfaces/fax/documents/index.js';
import { layoutPages } from '../../../../../host/surfaces/fax/documents/text-to-pdf.js';

test('long text becomes a multi-page PDF that pdf-lib parses, page count reported truly', async () => {
  const text = Array.from({ length: 200 }, (_, i) => `Line ${i + 1}: lab result within normal range.`).join('\n');
  const { pdf, pages } = await textToPdf(text, { paper: 'letter' });
  assert.ok(pages > 1, `expected several pages, got ${pages}`);
  const parsed = await PDFDocument.load(pdf);
  assert.is(parsed.getPageCount(), pages);
  const { width, height } = parsed.getPage(0).getSize();
  assert.is(Math.round(width), 612);
  assert.is(Math.round(height), 792);
});

test('A4 paper gives A4 pages', async () => {
  const { pdf } = await textToPdf('hello\n', { paper: 'a4' });
  const { width, height } = (await PDFDocument.load(pdf)).getPage(0).getSize();
  assert.is(Math.round(width), 595);
  assert.is(Math.round(height), 842);
});

test('long lines wrap at a space, or mid-word when there is none', () => {
  const [page] = layoutPages(`${'word '.repeat(30)}\n${'x'.repeat(25)}`, 20, 50);
  assert.ok(page);
  for (const line of page) assert.ok(line.length <= 20, `line too long: ${line}`);
  assert.equal(page.slice(0, 2), ['word word word word', 'word word word word']);
  assert.equal(page.slice(-2), ['x'.repeat(20), 'x'.repeat(5)]);
});

test('pages break when full and at form feeds; tabs expand to 8 columns', () => {
  const pages = layoutPages('a\nb\nc\fd\tx', 80, 2);
  assert.equal(pages, [['a', 'b'], ['c'], ['d       x']]);
});

test('characters the fax font cannot print become ?, never garbage', async () => {
  const pages = layoutPages('naïve café 日本 €5', 80, 10);
  assert.equal(pages, [['naïve café ?? €5']]);
  const { pdf } = await textToPdf('emoji 🎉 here', { paper: 'letter' });
  assert.is((await PDFDocument.load(pdf)).getPageCount(), 1);
});

test.run();
