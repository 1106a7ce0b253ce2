import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { makePdf } from '../fakes/fax-document-server.js';
import { checkAccessibility, ensureConsoleBuilt, openBrowser, screenshot, type ConsoleBrowser } from '../support/browser.js';
import { json, startGateway, type TestGateway } from '../support/gateway.js';

// The Fax page in Chromium against a real gateway with the simulated backend: a fax sent the way
// a person would (number, document, page count shown, send), then found in the list (number
// masked) and followed in its detail timeline; errors show the API's detail and keep the form;
// inbound faxes listed with a download (fetched with the key in a header, never in the URL).
let gw: TestGateway;
let browser: ConsoleBrowser;

test.before(async () => {
  ensureConsoleBuilt();
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '200', FAX_DISPATCH_POLL_MS: '50', INBOUND_ENABLED: 'true' });
  browser = await openBrowser();
});
test.after(async () => {
  await browser?.close();
  await gw?.close();
});

test('send a fax through the UI: page count before sending, then the job in its detail and in the list', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax`);
  await page.getByRole('heading', { level: 1, name: 'Fax' }).waitFor();
  const number = page.getByLabel(/Destination number/);
  // The number is checked as the API checks it, before anything is sent.
  await number.fill('12ab');
  await number.blur();
  await page.getByText('An optional "+" and 6 to 20 digits', { exact: false }).nth(1).waitFor();
  assert.is(await number.getAttribute('aria-invalid'), 'true');
  await number.fill('+1 (555) 010-0001');
  assert.is(await number.getAttribute('aria-invalid'), null);
  await page.getByLabel('Document').setInputFiles({ name: 'letter.pdf', mimeType: 'application/pdf', buffer: await makePdf(3) });
  await page.getByTestId('chosen-file').getByText(/letter\.pdf/).waitFor();
  await page.getByRole('button', { name: 'Check document and count pages' }).click();
  const preview = page.getByTestId('preview');
  await preview.waitFor();
  assert.match(await preview.innerText(), /3 pages\s+to\s+\*+0001/);
  await checkAccessibility(page, 'fax: send with preview');
  await screenshot(page, 'fax');
  await page.getByRole('button', { name: 'Send 3 pages' }).click();

  // The job's detail, live until final: its timeline has the attempt and the outcome.
  await page.getByRole('heading', { level: 2, name: /^Job / }).waitFor();
  const jobId = (await page.getByRole('heading', { level: 2, name: /^Job / }).innerText()).replace(/^Job /, '');
  const timeline = page.getByTestId('timeline');
  await timeline.getByText('Finished: SUCCESS').waitFor({ timeout: 15_000 });
  const events = await timeline.locator('li').allInnerTexts();
  assert.ok(events[0]?.includes('Accepted and queued'), events.join('\n'));
  assert.ok(events.some((e) => e.includes('Attempt 1 started')), events.join('\n'));
  assert.ok(events.some((e) => e.includes('Attempt 1 ended: SUCCESS')), events.join('\n'));
  const detail = await page.getByTestId('job-detail').innerText();
  assert.match(detail, /Pages\s+3/);
  assert.not.match(detail, /5550100001/);
  await checkAccessibility(page, 'fax: job detail');
  await screenshot(page, 'fax-job');
  // The API agrees: the fax was sent to the number typed.
  const job = await json(await fetch(`${gw.url}/admin/fax-jobs/${jobId}`));
  assert.is(job.status, 'SUCCESS');
  assert.is(job.pages, 3);

  // Back to the list: the job is there, its number masked.
  await page.getByRole('link', { name: '← All jobs' }).click();
  const row = page.getByTestId('jobs').locator('tr', { has: page.getByRole('link', { name: jobId.slice(0, 8) }) });
  await row.waitFor();
  const text = await row.innerText();
  assert.match(text, /\*+0001/);
  assert.not.match(text, /5550100001/);
  assert.match(text, /SUCCESS/);
  // A filter that excludes it.
  await page.getByLabel('Status').selectOption('FAILED');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.getByText('No jobs match these filters.').waitFor();
  await page.getByLabel('Status').selectOption('SUCCESS');
  await page.getByRole('button', { name: 'Filter' }).click();
  await row.waitFor();
  assert.equal(browser.problems, []);
});

test("a refused document shows the API's detail and keeps what was typed; drag and drop picks the file", async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax`);
  await page.getByRole('heading', { level: 1, name: 'Fax' }).waitFor();
  await page.getByLabel(/Destination number/).fill('+15550100003');
  // Dropped onto the zone: bytes no converter accepts.
  await page.getByTestId('dropzone').evaluate((zone) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6])], 'archive.zip', { type: 'application/zip' }));
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.getByTestId('chosen-file').getByText(/archive\.zip/).waitFor();
  await page.getByRole('button', { name: 'Check document and count pages' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const message = await alert.innerText();
  // The gateway's own words, and its status and code.
  const direct = new FormData();
  direct.set('to', '+15550100003');
  direct.set('file', new Blob([new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6])]), 'archive.zip');
  const apiAnswer = await fetch(`${gw.url}/fax/prepare`, { method: 'POST', body: direct });
  const body = await json(apiAnswer);
  assert.ok(message.includes(body.detail), `${message} / ${body.detail}`);
  assert.ok(message.includes(String(apiAnswer.status)));
  assert.is(await page.getByLabel(/Destination number/).inputValue(), '+15550100003');
  await page.getByTestId('chosen-file').getByText(/archive\.zip/).waitFor();
  assert.equal(browser.problems, []);
});

test('several numbers and documents: sent at once as a batch, the documents merged in order, each job linked', async () => {
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax`);
  await page.getByRole('heading', { level: 1, name: 'Fax' }).waitFor();
  const number = page.getByLabel(/Destination number/);
  await number.fill('+15550100011, 12ab');
  await number.blur();
  assert.is(await number.getAttribute('aria-invalid'), 'true', 'each number is checked');
  await number.fill('+1 555 010 0011, +15550100012');
  assert.is(await number.getAttribute('aria-invalid'), null);
  await page.getByLabel('Document').setInputFiles([
    { name: 'first.pdf', mimeType: 'application/pdf', buffer: await makePdf(2) },
    { name: 'second.txt', mimeType: 'text/plain', buffer: Buffer.from('a note after the letter\n') },
  ]);
  await page.getByTestId('chosen-file').getByText(/second\.txt/).waitFor();
  await page.getByRole('button', { name: 'Send to 2 numbers' }).click();
  const sent = page.getByTestId('batch');
  await sent.waitFor();
  assert.match(await sent.innerText(), /3 pages to 2 numbers/);
  assert.not.match(await sent.innerText(), /5550100011/, 'numbers masked');
  await checkAccessibility(page, 'fax: batch sent');
  const links = await sent.getByRole('link').allInnerTexts();
  assert.is(links.length, 2);
  // The API agrees: one batch, a job per number in order, the two documents as one of 3 pages.
  const batchId = (await sent.locator('.mono').first().innerText()).trim();
  const jobs = await Promise.all(links.map(async (short) => {
    const list = (await json(await fetch(`${gw.url}/admin/fax-jobs?limit=50`))) as { jobs: Array<{ id: string }> };
    const id = list.jobs.find((j) => j.id.startsWith(short))!.id;
    return (await json(await fetch(`${gw.url}/fax/${id}`))) as { id: string; to: string; pages: number; batch_id: string };
  }));
  assert.equal(jobs.map((j) => [j.to, j.pages]), [['+15550100011', 3], ['+15550100012', 3]]);
  assert.ok(jobs[0]!.batch_id.startsWith(batchId) && jobs[1]!.batch_id === jobs[0]!.batch_id);
  await sent.getByRole('link').first().click();
  await page.getByRole('heading', { level: 2, name: /^Job / }).waitFor();
  assert.equal(browser.problems, []);
});

test('inbound faxes are listed with their pages and a download', async () => {
  const secret = readFileSync(path.join(gw.dataDir, 'fax-sim', 'secret'), 'utf8').trim();
  const notice = JSON.stringify({ id: 'console-inbound-1', from: '+15550109999', to: '+15550100001', pdf_base64: (await makePdf(2)).toString('base64') });
  const injected = await fetch(`${gw.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': createHmac('sha256', secret).update(notice).digest('hex') }, body: notice });
  assert.is(injected.status, 200);
  const { page } = browser;
  await page.goto(`${gw.url}/#/fax/inbound`);
  const table = page.getByTestId('inbound');
  await table.waitFor();
  const row = await table.locator('tbody tr').first().innerText();
  assert.match(row, /9999/);
  assert.match(row, /\b2\b/);
  const download = page.waitForEvent('download');
  await table.getByRole('button', { name: /Download PDF of the fax received/ }).first().click();
  const file = await (await download).path();
  assert.is(readFileSync(file).subarray(0, 5).toString(), '%PDF-');
  await checkAccessibility(page, 'fax: inbound');
  await screenshot(page, 'fax-inbound');
  assert.equal(browser.problems, []);
});

test('inbound off (the default) reads as a neutral state naming INBOUND_ENABLED, not as an error', async () => {
  const plain = await startGateway({ FAX_DISABLED: 'true' });
  try {
    const { page } = browser;
    await page.goto(`${plain.url}/#/fax/inbound`);
    const note = page.getByTestId('inbound-off');
    await note.waitFor();
    assert.match(await note.innerText(), /Receiving is off by default\. Set INBOUND_ENABLED=true/);
    assert.is(await page.getByRole('alert').count(), 0, 'no error shown');
    assert.is(await note.locator('.badge.neutral').count(), 1);
  } finally {
    await plain.close();
  }
});

test.run();
