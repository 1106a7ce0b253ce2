import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { imageToPdf, InvalidDocumentError } from '../../../../../host/surfaces/fax/documents/index.js';
import { sampleJpeg, samplePng, sampleTiff } from './samples.js';

async function pageCount(pdf: Buffer): Promise<number> {
  return (await PDFDocument.load(pdf)).getPageCount();
}

test('a PNG becomes a one-page PDF of the chosen paper', async () => {
  const { pdf, pages } = await imageToPdf(await samplePng(), { paper: 'a4' });
  assert.is(pages, 1);
  assert.is(await pageCount(pdf), 1);
  const { width } = (await PDFDocument.load(pdf)).getPage(0).getSize();
  assert.is(Math.round(width), 595);
});

test('a JPEG becomes a one-page PDF', async () => {
  const { pdf, pages } = await imageToPdf(await sampleJpeg(), { paper: 'letter' });
  assert.is(pages, 1);
  assert.is(await pageCount(pdf), 1);
});

test('a 3-page TIFF becomes a 3-page PDF', async () => {
  const tiff = await sampleTiff(3);
  assert.is((await sharp(tiff).metadata()).pages, 3);
  const { pdf, pages } = await imageToPdf(tiff, { paper: 'letter' });
  assert.is(pages, 3);
  assert.is(await pageCount(pdf), 3);
});

test('an image over the pixel limit is refused with a clear error before decoding', async () => {
  const big = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#fff' } }).png().toBuffer();
  try {
    await imageToPdf(big, { paper: 'letter', maxPixels: 1_000_000 });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
    assert.match((err as Error).message, /4000x3000 pixels; at most 1000000/);
  }
});

test('a truncated PNG is an invalid document', async () => {
  const png = await samplePng();
  try {
    await imageToPdf(png.subarray(0, 60), { paper: 'letter' });
    assert.unreachable('should refuse');
  } catch (err) {
    assert.instance(err, InvalidDocumentError);
  }
});

test.run();
