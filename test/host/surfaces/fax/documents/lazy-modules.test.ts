import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPdfKit, loadPdfLib, reportLibraryLoads } from '../../../../../host/surfaces/fax/documents/lazy-modules.js';

// A document thread loads pdf-lib and pdfkit on a job's first need (a well-formed PDF needs
// neither) and reports each first load, so the pool's deadline leaves the load out.

test('a first load is reported once around it, concurrent first uses share it, a loaded library is not reported again', async () => {
  const phases: string[] = [];
  reportLibraryLoads((phase) => phases.push(phase));
  const [a, b] = await Promise.all([loadPdfLib(), loadPdfLib()]);
  assert.is(a, b);
  assert.is(typeof a.PDFDocument.load, 'function');
  assert.equal(phases, ['start', 'end']);
  await loadPdfLib();
  assert.equal(phases, ['start', 'end'], 'a loaded library costs no pause');
  const [PDFKit] = await Promise.all([loadPdfKit(), loadPdfKit()]);
  assert.is(typeof PDFKit, 'function');
  assert.equal(phases, ['start', 'end', 'start', 'end']);
});

test('two libraries loading at once are one pause', async () => {
  // A fresh module instance: the first test loaded both libraries in this one.
  const fresh = (await import(`${new URL('../../../../../host/surfaces/fax/documents/lazy-modules.js', import.meta.url).href}?fresh`)) as typeof import('../../../../../host/surfaces/fax/documents/lazy-modules.js');
  const phases: string[] = [];
  fresh.reportLibraryLoads((phase) => phases.push(phase));
  await Promise.all([fresh.loadPdfLib(), fresh.loadPdfKit()]);
  assert.equal(phases, ['start', 'end']);
});

test.run();
