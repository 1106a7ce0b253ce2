import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gatewayDb } from '../../../../support/database.js';
import { json, startGateway, until, type TestGateway } from '../../../../support/gateway.js';

/**
 * Several documents and several recipients on POST /fax, through fax-sim on a real gateway: the
 * files merged in order into one stored document, a batch of one job per number sharing it,
 * scheduled, canceled, replayed by Idempotency-Key, refused past its limits. Sends are counted
 * at fax-sim: every attempt it took is kept in its store (`plugins/fax-sim/faxes/<job id>.json`).
 */
let gw: TestGateway;

type Job = { id: string; to: string; status: string; error?: string; pages?: number; send_at?: string; batch_id?: string; attempts?: Array<{ started_at: string }> };
type Batch = { batch_id: string; pages: number; send_at?: string; jobs: Job[] };
type Refusal = { code: string; detail: string };

/** A PDF whose pages are `width` points wide: the merged document's order shows in its widths. */
async function pdfOfWidth(width: number, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([width, 792]);
  return Buffer.from(await doc.save());
}

function form(fields: Array<[string, string]>, files: Array<Buffer | string>): FormData {
  const body = new FormData();
  for (const [k, v] of fields) body.append(k, v);
  files.forEach((f, i) => body.append('file', new Blob([new Uint8Array(typeof f === 'string' ? Buffer.from(f) : f)]), `part-${i}`));
  return body;
}
const submit = (fields: Array<[string, string]>, files: Array<Buffer | string>, headers: Record<string, string> = {}) => fetch(`${gw.url}/fax`, { method: 'POST', body: form(fields, files), headers });

const storage = <T>(fn: (s: { list(prefix: string): Promise<Array<{ key: string }>>; get(key: string): Promise<Buffer> }) => Promise<T>) =>
  gw.gateway.kernel.withProvider('storage', gw.gateway.platform.config.get('STORAGE_BACKEND') as string, fn);
const storedKeys = async (prefix: string) => (await storage((s) => s.list(prefix))).map((e) => e.key).sort();
/** The numbers fax-sim took a send for, one entry per send. */
async function simSends(): Promise<Array<{ jobId: string; to: string }>> {
  return storage(async (s) => {
    const sends: Array<{ jobId: string; to: string }> = [];
    for (const { key } of await s.list('plugins/fax-sim/faxes/')) {
      for (const fax of (JSON.parse((await s.get(key)).toString()) as { faxes: Array<{ jobId: string; to: string }> }).faxes) sends.push({ jobId: fax.jobId, to: fax.to });
    }
    return sends;
  });
}
const jobCount = async () => Number((await gatewayDb(gw.gateway).selectFrom('fax_jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
const jobOf = async (id: string) => (await json(await fetch(`${gw.url}/fax/${id}`))) as Job;
const finished = (id: string) =>
  until(async () => {
    const job = await jobOf(id);
    return (job.status === 'SUCCESS' || job.status === 'FAILED') && job;
  }, 20000, 50);

test.before(async () => {
  gw = await startGateway({ FAX_BACKEND: 'fax-sim', FAX_SIM_DELAY_MS: '200', FAX_DISPATCH_POLL_MS: '50', FAX_MAX_FILES_PER_FAX: '3', FAX_MAX_RECIPIENTS: '3', FAX_MAX_TOTAL_UPLOAD_MB: '1' });
  await until(() => gw.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
  // The document threads start cold (their PDF libraries load first): warm them, so a scheduled submit's time is not spent there.
  const warm = await submit([['to', '+15550000999'], ['cover_subject', 'warm-up']], ['text', await pdfOfWidth(612, 1)]);
  assert.is(warm.status, 202, await warm.clone().text());
});
test.after(async () => {
  await gw?.close();
});

test('a three-file, three-recipient scheduled batch: one merged document stored once, sent on time, each recipient once; a replay answers the same batch', async () => {
  const numbers = ['+15550000101', '+15550000102', '+15550000103'];
  const sendAt = new Date(Date.now() + 8000).toISOString();
  const fields: Array<[string, string]> = [...numbers.map((n): [string, string] => ['to', n]), ['send_at', sendAt], ['cover_subject', 'Three parts']];
  const files = [await pdfOfWidth(300, 2), 'a page of plain text\n', await pdfOfWidth(400, 1)];
  const res = await submit(fields, files, { 'Idempotency-Key': 'batch-1' });
  assert.is(res.status, 202, await res.clone().text());
  const batch = (await res.json()) as Batch;
  assert.is(batch.pages, 5, 'cover + 2 + 1 + 1');
  assert.is(batch.send_at, sendAt);
  assert.equal(batch.jobs.map((j) => [j.to, j.status, j.pages, j.send_at, j.batch_id]), numbers.map((n) => [n, 'queued', 5, sendAt, batch.batch_id]));

  // One document for the batch, none per job: the cover first, then the files in order.
  assert.equal(await storedKeys(`fax/${batch.batch_id}/`), [`fax/${batch.batch_id}/document.pdf`]);
  for (const job of batch.jobs) assert.equal(await storedKeys(`fax/${job.id}/`), [], job.id);
  const merged = await PDFDocument.load(await storage((s) => s.get(`fax/${batch.batch_id}/document.pdf`)));
  assert.equal(merged.getPages().map((p) => Math.round(p.getWidth())), [612, 300, 300, 612, 400]);

  const listed = (await json(await fetch(`${gw.url}/fax/batches/${batch.batch_id}`))) as Batch;
  assert.equal(listed.jobs.map((j) => [j.id, j.to, j.status]), batch.jobs.map((j) => [j.id, j.to, 'queued']));

  const before = await jobCount();
  const replay = await submit(fields, files, { 'Idempotency-Key': 'batch-1' });
  assert.is(replay.status, 200, await replay.clone().text());
  assert.equal(((await replay.json()) as Batch).jobs.map((j) => j.id), batch.jobs.map((j) => j.id));
  assert.is(await jobCount(), before, 'a replay stores nothing');
  const other = await submit([['to', numbers[0]!], ['to', '+15550000109'], ['send_at', sendAt], ['cover_subject', 'Three parts']], files, { 'Idempotency-Key': 'batch-1' });
  assert.is(other.status, 422);
  assert.is(((await other.json()) as Refusal).code, 'idempotency_key_reused');

  const ofBatch = async () => (await simSends()).filter((s) => batch.jobs.some((j) => j.id === s.jobId));
  assert.equal(await ofBatch(), [], 'nothing sent before send_at');
  for (const job of batch.jobs) {
    const done = await finished(job.id);
    assert.is(done.status, 'SUCCESS', JSON.stringify(done));
    assert.is(done.attempts!.length, 1);
    assert.ok(Date.parse(done.attempts![0]!.started_at) >= Date.parse(sendAt), `${done.attempts![0]!.started_at} before ${sendAt}`);
  }
  const sends = await ofBatch();
  assert.equal(sends.map((s) => s.to).sort(), numbers, 'each recipient exactly once');
});

test('cancel before the time prevents that job\'s send; the others of the batch go out', async () => {
  const sendAt = new Date(Date.now() + 2500).toISOString();
  const res = await submit([['to', '+15550000201'], ['to', '+15550000202'], ['send_at', sendAt]], [await pdfOfWidth(612, 1)]);
  assert.is(res.status, 202, await res.clone().text());
  const batch = (await res.json()) as Batch;
  const [canceled, kept] = batch.jobs as [Job, Job];
  const cancel = await fetch(`${gw.url}/fax/${canceled.id}/cancel`, { method: 'POST' });
  assert.is(cancel.status, 200, await cancel.clone().text());
  assert.is((await finished(kept.id)).status, 'SUCCESS');
  const after = await jobOf(canceled.id);
  assert.equal([after.status, after.error, after.attempts], ['FAILED', 'canceled', []]);
  const sends = (await simSends()).filter((s) => s.jobId === canceled.id || s.jobId === kept.id);
  assert.equal(sends, [{ jobId: kept.id, to: '+15550000202' }]);
  const listed = (await json(await fetch(`${gw.url}/fax/batches/${batch.batch_id}`))) as Batch;
  assert.equal(listed.jobs.map((j) => j.status), ['FAILED', 'SUCCESS']);
});

test('deleting one job\'s document deletes the batch\'s, and every job of it answers 410; refused while a job may still send', async () => {
  const res = await submit([['to', '+15550000301'], ['to', '+15550000302'], ['send_at', new Date(Date.now() + 600_000).toISOString()]], [await pdfOfWidth(612, 1)]);
  const batch = (await res.json()) as Batch;
  const [first, second] = batch.jobs as [Job, Job];
  assert.is((await fetch(`${gw.url}/fax/${first.id}/cancel`, { method: 'POST' })).status, 200);
  const early = await fetch(`${gw.url}/fax/${first.id}/document`, { method: 'DELETE' });
  assert.is(early.status, 409, 'the other job may still send the shared document');
  assert.is(((await early.json()) as Refusal).code, 'fax_document_in_use');
  assert.is((await fetch(`${gw.url}/fax/${second.id}/cancel`, { method: 'POST' })).status, 200);
  assert.is((await fetch(`${gw.url}/fax/${first.id}/document`, { method: 'DELETE' })).status, 204);
  assert.equal(await storedKeys(`fax/${batch.batch_id}/`), []);
  for (const job of [first, second]) {
    for (const [method, route] of [['GET', `/admin/fax-jobs/${job.id}/pdf`], ['POST', `/fax/${job.id}/resend`]] as const) {
      const gone = await fetch(`${gw.url}${route}`, { method });
      assert.is(gone.status, 410, route);
      assert.is(((await gone.json()) as Refusal).code, 'document_deleted');
    }
  }
  assert.is((await fetch(`${gw.url}/fax/batches/no-such-batch`)).status, 404);
});

test('past a limit or with a bad part the request is refused with its own code, nothing stored and no temp file left', async () => {
  const pdf = await pdfOfWidth(612, 1);
  const jobs = await jobCount();
  const documents = await storedKeys('fax/');
  const cases: Array<[string, Promise<Response>, number, string, RegExp]> = [
    ['four files', submit([['to', '+15550000401']], [pdf, pdf, pdf, pdf]), 400, 'too_many_files', /FAX_MAX_FILES_PER_FAX/],
    ['four numbers', submit([['to', '+15550000401'], ['to', '+15550000402'], ['to', '+15550000403'], ['to', '+15550000404']], [pdf]), 400, 'too_many_recipients', /FAX_MAX_RECIPIENTS/],
    // Under the limit by Content-Length, over it as the second file streams: temp files were written.
    ['1.08 MB in two files', submit([['to', '+15550000401'], ['to', '+15550000402']], [Buffer.concat([pdf, Buffer.alloc(540_000 - pdf.length, 0x0a)]), Buffer.concat([pdf, Buffer.alloc(540_000 - pdf.length, 0x0a)])]), 413, 'upload_too_large', /FAX_MAX_TOTAL_UPLOAD_MB/],
    ['a bad number', submit([['to', '+15550000401'], ['to', 'not-a-number']], [pdf]), 400, 'validation_error', /to\[1\]/],
    ['a number twice', submit([['to', '+15550000401'], ['to', '15550000401']], [pdf]), 400, 'validation_error', /once/],
    ['an empty second file', submit([['to', '+15550000401']], [pdf, '']), 400, 'validation_error', /file 2 is empty/],
    ['a damaged second file', submit([['to', '+15550000401'], ['to', '+15550000402']], [pdf, '%PDF-1.4 nothing more']), 400, 'invalid_document', /./],
  ];
  for (const [label, request, status, code, detail] of cases) {
    const res = await request;
    const body = (await res.json()) as Refusal;
    assert.is(res.status, status, `${label}: ${JSON.stringify(body)}`);
    assert.is(body.code, code, label);
    assert.match(body.detail, detail, label);
  }
  assert.is(await jobCount(), jobs, 'no job stored');
  assert.equal(await storedKeys('fax/'), documents, 'no document stored');
  assert.equal(readdirSync(path.join(gw.dataDir, 'tmp')), [], 'no temp file left');
});

test.run();
