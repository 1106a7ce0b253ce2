import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile, stat } from 'node:fs/promises';
import sharp from 'sharp';
import { readTiffPages } from './tiff-directory.js';
import { storeJobDocument, type StoredJob } from './stored-job.js';

const jobs: StoredJob[] = [];
test.after(async () => {
  for (const job of jobs) await job.cleanup();
});
async function job(pages: number): Promise<StoredJob> {
  const stored = await storeJobDocument({ pages });
  jobs.push(stored);
  return stored;
}

test('read() returns the stored PDF', async () => {
  const { document, pdf } = await job(1);
  assert.ok((await document.read()).equals(pdf));
  assert.is(document.pages, 1);
});

test('saveArtifact stores beside the PDF and tells the local path', async () => {
  const { document, jobId, storage } = await job(1);
  const saved = await document.saveArtifact('receipt.json', Buffer.from('{"ok":true}'));
  assert.is(saved.key, `jobs/${jobId}/receipt.json`);
  assert.ok(saved.localPath);
  assert.is(await readFile(saved.localPath!, 'utf8'), '{"ok":true}');
  assert.ok(await storage.exists(saved.key));
});

test('saveArtifact refuses names that are not plain file names', async () => {
  const { document } = await job(1);
  for (const name of ['../escape.pdf', 'sub/dir.tiff', '..', '', 'a b.tiff']) {
    try {
      await document.saveArtifact(name, Buffer.from('x'));
      assert.unreachable(`accepted ${name}`);
    } catch (err) {
      assert.instance(err, TypeError);
    }
  }
});

test('renderTiff stores a multi-page G4 TIFF beside the PDF, pages as the PDF', async () => {
  const { document, jobId } = await job(3);
  const tiff = await document.renderTiff({ paper: 'a4' });
  assert.is(tiff.key, `jobs/${jobId}/fax.tiff`);
  assert.is(tiff.pages, 3);
  assert.ok((await stat(tiff.localPath!)).size > 0);
  const meta = await sharp(tiff.localPath!).metadata();
  assert.is(meta.pages, 3);
  const directories = await readTiffPages(tiff.localPath!);
  assert.equal(directories.map((d) => d.compression), [4, 4, 4], 'CCITT G4 on every page');
  assert.is(meta.height, 2292, 'A4 height at 196 dpi');
});

test.run();
