import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { GhostscriptError, ghostscriptVersion, pdfToFaxTiff } from '../../../../../host/surfaces/fax/documents/index.js';
import { samplePdf } from './samples.js';
import { readTiffPages, TIFF_COMPRESSION } from './tiff-directory.js';

let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'switchboard-gs-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a 3-page PDF becomes a 3-page CCITT G4 TIFF at fax resolution', async () => {
  const pdf = path.join(dir, 'three.pdf');
  await writeFile(pdf, await samplePdf(3));
  const tiff = path.join(dir, 'three.tiff');
  const { pages } = await pdfToFaxTiff(pdf, tiff, { paper: 'letter', timeoutMs: 60_000 });
  assert.is(pages, 3);
  const meta = await sharp(tiff).metadata();
  assert.is(meta.format, 'tiff');
  assert.is(meta.pages, 3);
  assert.is(meta.bitsPerSample, 1);
  // The fax line is 1728 px wide whatever the paper; letter is 11 in x 196 dpi = 2156 px high.
  const directories = await readTiffPages(tiff);
  assert.is(directories.length, 3);
  for (const page of directories) {
    assert.is(page.compression, TIFF_COMPRESSION.ccittG4);
    assert.equal([page.width, page.height, page.xResolution, page.yResolution], [1728, 2156, 204, 196]);
  }
  assert.equal((await readdir(dir)).sort(), ['three.pdf', 'three.tiff'], 'no temporary file is left');
});

test('letter and A4 renderings differ in size', async () => {
  const pdf = path.join(dir, 'one.pdf');
  await writeFile(pdf, await samplePdf(1));
  await pdfToFaxTiff(pdf, path.join(dir, 'letter.tiff'), { paper: 'letter', timeoutMs: 60_000 });
  await pdfToFaxTiff(pdf, path.join(dir, 'a4.tiff'), { paper: 'a4', timeoutMs: 60_000 });
  const letter = await sharp(path.join(dir, 'letter.tiff')).metadata();
  const a4 = await sharp(path.join(dir, 'a4.tiff')).metadata();
  assert.is.not(letter.height, a4.height);
  assert.equal([letter.width, letter.height], [1728, 2156]);
  assert.equal([a4.width, a4.height], [1728, 2292]);
});

/** Processes whose command line mentions `needle`, read from /proc. */
async function processesMentioning(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) pids.push(Number(entry));
  }
  return pids;
}

test('ghostscript running past the timeout is killed and leaves no file behind', async () => {
  const pdf = path.join(dir, 'long.pdf');
  await writeFile(pdf, await samplePdf(400));
  const tiff = path.join(dir, 'long-timeout.tiff');
  const started = Date.now();
  try {
    await pdfToFaxTiff(pdf, tiff, { paper: 'letter', timeoutMs: 300 });
    assert.unreachable('should time out');
  } catch (err) {
    assert.instance(err, GhostscriptError);
    assert.ok((err as GhostscriptError).timedOut);
    assert.match((err as Error).message, /longer than 300 ms/);
  }
  assert.ok(Date.now() - started < 5_000, 'gave up promptly');
  assert.equal(await processesMentioning('long-timeout.tiff'), [], 'no ghostscript process is left');
  const left = (await readdir(dir)).filter((f) => f.includes('long-timeout'));
  assert.equal(left, [], 'neither the TIFF nor its temporary file exists');
});

test('a file ghostscript cannot read is a GhostscriptError naming the failure', async () => {
  const bad = path.join(dir, 'bad.pdf');
  await writeFile(bad, '%PDF-1.4\nthis is not really a pdf\n');
  try {
    await pdfToFaxTiff(bad, path.join(dir, 'bad.tiff'), { paper: 'letter', timeoutMs: 60_000 });
    assert.unreachable('should fail');
  } catch (err) {
    assert.instance(err, GhostscriptError);
    assert.not.ok((err as GhostscriptError).timedOut);
  }
  assert.not.ok((await readdir(dir)).some((f) => f.includes('bad.tiff')));
});

test('ghostscriptVersion reports the installed version', async () => {
  const version = await ghostscriptVersion();
  assert.match(version ?? '', /^\d+\.\d+/);
  assert.is(await ghostscriptVersion(), version);
});

test.run();
