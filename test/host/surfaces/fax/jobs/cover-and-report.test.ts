import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import { makePdf } from '../../../../fakes/fax-document-server.js';
import { json, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { pdfText, pdfUnicodeText } from '../../../../support/pdf-text.js';
import { fillCoverTemplate } from '../../../../../host/surfaces/fax/documents/index.js';

// FAX_DISABLED stores jobs final ("disabled") without a provider: enough for what a job's document and report hold.
let gw: TestGateway;
const NUMBER = '+15550108899';

const submit = async (file: Buffer | string, fields: Record<string, string> = {}) => {
  const form = new FormData();
  form.set('to', NUMBER);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  form.set('file', new Blob([new Uint8Array(typeof file === 'string' ? Buffer.from(file) : file)]), 'doc');
  return fetch(`${gw.url}/fax`, { method: 'POST', body: form });
};
const accepted = async (file: Buffer | string, fields: Record<string, string> = {}) => {
  const res = await submit(file, fields);
  assert.is(res.status, 202, await res.clone().text());
  return json(res);
};
const storedPdf = async (id: string) => {
  const res = await fetch(`${gw.url}/admin/fax-jobs/${id}/pdf`);
  assert.is(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
};
const pageCount = async (pdf: Buffer) => (await PDFDocument.load(pdf)).getPageCount();

test.before(async () => {
  gw = await startGateway({
    FAX_DISABLED: 'true',
    FAX_COVER_TEMPLATE: 'ACME FAX COVER\\nTo: {to}\\nFrom: {from}\\nRe: {subject}\\nPages: {pages}\\n\\n{message}',
    LOG_LEVEL: 'warn',
  });
});
test.after(async () => {
  await gw.close();
});

/** A custom entry of a PDF's Info dictionary, decoded. */
async function infoEntry(pdf: Buffer, key: string): Promise<string | undefined> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const info = doc.context.lookup(doc.context.trailerInfo.Info, PDFDict);
  const value = info.lookup(PDFName.of(key));
  return value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;
}

test('a cover page draws Cyrillic and Greek with the bundled font; characters it cannot draw are listed, not printed as ?', async () => {
  const message = 'Привет, мир. Καλημέρα κόσμε. 你好 😀';
  const job = await accepted(await makePdf(1), { cover_subject: 'Ωμέγα и Я', cover_message: message });
  const pdf = await storedPdf(job.id);
  const text = await pdfUnicodeText(pdf);
  for (const words of ['Привет, мир.', 'Καλημέρα κόσμε.', 'Re: Ωμέγα и Я']) assert.ok(text.includes(words), `cover has "${words}":\n${text}`);
  assert.not.ok(/\?{2,}|Re: \?/.test(text), `no character printed as ?:\n${text}`);
  const undrawable = (await infoEntry(pdf, 'UndrawableCharacters'))?.split(' ') ?? [];
  assert.equal(undrawable.sort(), ['你', '好', '😀'].sort());
  assert.ok(gw.logs.some((l) => l.includes('cover page: characters the bundled font cannot draw') && l.includes('😀')), gw.logs.join('\n'));
  const latin = await storedPdf((await accepted(await makePdf(1), { cover_message: 'plain text' })).id);
  assert.is(await infoEntry(latin, 'UndrawableCharacters'), undefined, 'nothing listed when everything is drawn');
});

test('a cover page is prepended from FAX_COVER_TEMPLATE, counted in pages, and stored with the job', async () => {
  const plain = await accepted(await makePdf(2));
  assert.is(plain.pages, 2);
  assert.is(await pageCount(await storedPdf(plain.id)), 2);

  const covered = await accepted(await makePdf(2), { cover_to: 'Dr. Ada Lovelace', cover_from: 'Front desk', cover_subject: 'Lab results', cover_message: 'Three pages in all.\nCall if unclear: {to}' });
  assert.is(covered.pages, 3, 'the cover page counts');
  const pdf = await storedPdf(covered.id);
  assert.is(await pageCount(pdf), 3, 'the stored (sent) document holds the cover');
  const text = await pdfUnicodeText(pdf);
  for (const line of ['ACME FAX COVER', 'To: Dr. Ada Lovelace', 'From: Front desk', 'Re: Lab results', 'Pages: 3', 'Three pages in all.']) assert.ok(text.includes(line), `cover has "${line}":\n${text}`);
  assert.ok(text.includes('Call if unclear: {to}'), 'a value is never read as template');
  const admin = await json(await fetch(`${gw.url}/admin/fax-jobs/${covered.id}`));
  assert.is(admin.cover_page, true);
  assert.is(admin.document_sha256, createHash('sha256').update(pdf).digest('hex'));
});

test('a text upload with only a subject gets a cover too; To defaults to the destination', async () => {
  const job = await accepted('Hello there\n', { cover_subject: 'Greetings' });
  assert.is(job.pages, 2);
  const text = await pdfUnicodeText(await storedPdf(job.id));
  assert.ok(text.includes(`To: ${NUMBER}`));
  assert.ok(text.includes('Hello there'), 'the document follows the cover');
});

test('cover fields are validated: length caps and no control characters', async () => {
  const cases: Array<[string, string]> = [
    ['cover_subject', 'x'.repeat(201)],
    ['cover_to', 'y'.repeat(101)],
    ['cover_from', 'bell\u0007'],
    ['cover_message', 'm'.repeat(1001)],
    ['cover_message', 'escape \u001b[2J'],
  ];
  for (const [field, value] of cases) {
    const res = await submit('text\n', { [field]: value });
    assert.is(res.status, 400, `${field}: ${JSON.stringify(value.slice(0, 20))}`);
    const body = await json(res);
    assert.is(body.code, 'validation_error');
    assert.match(body.detail, field);
  }
  assert.is((await submit('text\n', { cover_message: 'two\nlines\twith a tab' })).status, 202, 'line breaks and tabs are fine in the message');
});

test('the template fills each placeholder once; a backslash-n breaks lines', () => {
  const text = fillCoverTemplate('A {to}\\nB {from}{subject}|{message}|{pages}|{date}|{unknown}', { to: '{from}', from: 'me', message: '\\n', pages: 4, date: new Date('2030-01-02T03:04:00Z') });
  assert.is(text, 'A {from}\nB me|\\n|4|2030-01-02 03:04 UTC|{unknown}');
});

test('GET /fax/{id}/report: a one-page PDF with outcome, pages, the masked number, backend and the document hash', async () => {
  const job = await accepted(await makePdf(3), { cover_subject: 'Report me' });
  const res = await fetch(`${gw.url}/fax/${job.id}/report`);
  assert.is(res.status, 200, await res.clone().text());
  assert.is(res.headers.get('content-type'), 'application/pdf');
  const report = Buffer.from(await res.arrayBuffer());
  assert.is(await pageCount(report), 1, 'the report parses and is one page');
  const text = pdfText(report);
  const hash = createHash('sha256').update(await storedPdf(job.id)).digest('hex');
  assert.ok(text.includes(hash), 'the SHA-256 of the document sent');
  assert.ok(text.includes('***8899'), `the number masked:\n${text}`);
  assert.not.ok(text.includes('5550108899'), 'never the full number');
  assert.not.ok(report.includes('5550108899'), 'not anywhere in the file either');
  for (const fact of ['Fax transmission report', job.id, 'disabled', '4 (cover page included)', job.backend]) assert.ok(text.includes(fact), `report has "${fact}"`);
});

test('the report of an unknown job is 404; of a job not final yet 409 fax_not_final', async () => {
  const missing = await fetch(`${gw.url}/fax/no-such-job/report`);
  assert.is(missing.status, 404);
  assert.is((await json(missing)).code, 'fax_job_not_found');
  // A job still waiting for dispatch (stored as the service would, but not disabled).
  const store = gw.gateway.surfaces.fax.store;
  const row = await store.insert({ id: 'queued-report-job', to: NUMBER, backend: 'providera', pdfKey: 'fax/queued-report-job/document.pdf', pages: 1, sourceType: 'pdf', sizeBytes: 10, disabled: false });
  const pending = await fetch(`${gw.url}/fax/${row.id}/report`);
  assert.is(pending.status, 409);
  const body = await json(pending);
  assert.is(body.code, 'fax_not_final');
  assert.match(body.detail, /queued|in_progress/);
});

test('/openapi.json documents the Idempotency-Key header, the 200 and 422 answers, the new fields and the report', async () => {
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  const post = doc.paths['/fax'].post;
  assert.ok(post.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key'));
  for (const status of ['200', '202', '422']) assert.ok(post.responses[status], status);
  const fields = Object.keys(post.requestBody.content['multipart/form-data'].schema.properties);
  for (const f of ['cover_to', 'cover_from', 'cover_subject', 'cover_message', 'retry_max_attempts', 'retry_delay_seconds']) assert.ok(fields.includes(f), f);
  assert.ok(doc.paths['/fax/{id}'].get.responses['200'].content['application/json'].schema.properties.attempts);
  const report = doc.paths['/fax/{id}/report'].get;
  assert.is(report['x-required-scope'], 'fax:read');
  for (const status of ['200', '404', '409']) assert.ok(report.responses[status], status);
});

test.run();
