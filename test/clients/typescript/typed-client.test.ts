import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSwitchboardClient, ApiError } from '../../../clients/typescript/src/index.js';
import { makePdf } from '../../fakes/fax-document-server.js';
import { removeDir, ROOT, startGateway, tempDir, until, type TestGateway } from '../../support/gateway.js';
import { writeRepoFile } from '../../host/surfaces/search/search-repo-fixture.js';

const run = promisify(execFile);
const CLIENT = path.join(ROOT, 'clients/typescript');
const KEY = 'typed-client-boot-key-91c3';
const NUMBER = '+15550108888';
let gw: TestGateway;
let repo: string;

test.before(async () => {
  repo = tempDir('client-repo-');
  writeRepoFile(repo, 'src/shipping/label-printer.ts', 'export function printShippingLabel(address: string): string {\n  return `LABEL: ${address}`;\n}\n');
  gw = await startGateway({ FAX_DISABLED: 'true', API_KEY: KEY, REPOS: JSON.stringify({ shop: repo }), REPO: 'shop', LOG_LEVEL: 'warn' });
});
test.after(async () => {
  await gw.close();
  removeDir(repo);
});

test('the committed schema matches /openapi.json (regenerated from a child gateway), and a changed one is drift', async () => {
  const ok = await run(process.execPath, [path.join(CLIENT, 'generate.mjs'), '--check'], { maxBuffer: 16 * 1024 * 1024 }).catch((err) => err);
  assert.is(ok.code ?? 0, 0, `${ok.stdout}${ok.stderr}`);
  // The check can fail: against a spec with one more route it reports drift.
  const spec = JSON.parse(JSON.stringify(await (await fetch(`${gw.url}/openapi.json`)).json()));
  spec.paths['/drifted'] = { get: { operationId: 'getDrifted', responses: { 200: { description: 'new' } } } };
  const specDir = tempDir('client-spec-');
  const file = path.join(specDir, 'openapi.json');
  writeFileSync(file, JSON.stringify(spec));
  const drift = await run(process.execPath, [path.join(CLIENT, 'generate.mjs'), '--check', '--spec', file]).catch((err) => err);
  removeDir(specDir);
  assert.is(drift.code, 1);
  assert.match(drift.stderr, /differs from the API/);
});

test('the package builds on its own (its TypeScript 5, strict)', async () => {
  const tsc = path.join(CLIENT, 'node_modules/typescript/bin/tsc');
  const out = await run(process.execPath, [tsc, '-p', path.join(CLIENT, 'tsconfig.json'), '--noEmit']).catch((err) => err);
  assert.is(out.code ?? 0, 0, `${out.stdout}${out.stderr}`);
  // A wrong use of the generated types does not compile.
  const dir = tempDir('client-misuse-');
  writeFileSync(path.join(dir, 'tsconfig.json'), readFileSync(path.join(CLIENT, 'tsconfig.json'), 'utf8').replace('"include": ["src"]', `"include": ["${path.join(CLIENT, 'src')}", "misuse.ts"]`).replace('"rootDir": "src"', '"rootDir": "/"'));
  writeFileSync(path.join(dir, 'misuse.ts'), `import { createSwitchboardClient } from '${path.join(CLIENT, 'src/index.js')}';\nconst c = createSwitchboardClient({ baseUrl: 'http://x' });\nvoid c.GET('/fax/{id}', { params: { path: { id: 1 } } });\n`);
  const misuse = await run(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json'), '--noEmit']).catch((err) => err);
  removeDir(dir);
  assert.is(misuse.code, 2, `${misuse.stdout}${misuse.stderr}`);
  assert.match(misuse.stdout, /misuse\.ts/);
});

test('send a fax (multipart), read its status, prepare and send by approval', async () => {
  const client = createSwitchboardClient({ baseUrl: `${gw.url}/`, apiKey: KEY });
  const pdf = await makePdf(2);
  const job = await client.sendFax({ to: NUMBER, file: pdf, filename: 'letter.pdf', cover: { subject: 'Invoice' }, idempotencyKey: 'client-test-1' });
  assert.is(job.pages, 3, 'two pages and the cover');
  assert.is(job.status, 'disabled');
  const again = await client.sendFax({ to: NUMBER, file: pdf, filename: 'letter.pdf', cover: { subject: 'Invoice' }, idempotencyKey: 'client-test-1' });
  assert.is(again.id, job.id, 'the Idempotency-Key header went along');
  const { data, error, response } = await client.GET('/fax/{id}', { params: { path: { id: job.id } } });
  assert.is(response.status, 200, JSON.stringify(error));
  assert.is(data!.id, job.id);
  const missing = await client.GET('/fax/{id}', { params: { path: { id: 'no-such-job' } } });
  assert.is(missing.response.status, 404);
  assert.ok(missing.error?.code);

  const preview = await client.prepareFax({ to: NUMBER, file: new Blob([new Uint8Array(pdf)]) });
  assert.is(preview.pages, 2);
  assert.is(preview.sha256, createHash('sha256').update(pdf).digest('hex'));
  const sent = await client.sendApproved(preview.approval_id, { sha256: preview.sha256 });
  assert.is(sent.pages, 2);
  try {
    await client.sendApproved(preview.approval_id);
    assert.unreachable('an approval sends once');
  } catch (err) {
    assert.instance(err, ApiError);
    assert.is((err as ApiError).code, 'approval_used');
    assert.is((err as ApiError).status, 409);
  }
  const batch = await client.sendFaxBatch({ to: [NUMBER, '+15550000777'], files: [{ file: pdf }, { file: new Blob(['a page of text\n']), filename: 'note.txt' }], idempotencyKey: 'client-batch-1' });
  assert.equal(batch.jobs.map((j) => [j.to, j.pages, j.batch_id]), [[NUMBER, 3, batch.batch_id], ['+15550000777', 3, batch.batch_id]]);
  const replayed = await client.sendFaxBatch({ to: [NUMBER, '+15550000777'], files: [{ file: pdf }, { file: new Blob(['a page of text\n']), filename: 'note.txt' }], idempotencyKey: 'client-batch-1' });
  assert.equal(replayed.jobs.map((j) => j.id), batch.jobs.map((j) => j.id), 'the key covers the batch');
  const listed = await client.GET('/fax/batches/{id}', { params: { path: { id: batch.batch_id } } });
  assert.equal(listed.data!.jobs.map((j) => j.id), batch.jobs.map((j) => j.id));

  const anonymous = createSwitchboardClient({ baseUrl: gw.url });
  try {
    await anonymous.sendFax({ to: NUMBER, file: pdf });
    assert.unreachable('a key is needed');
  } catch (err) {
    assert.is((err as ApiError).status, 401);
  }
});

test('index, search code and stream an answer', async () => {
  const client = createSwitchboardClient({ baseUrl: gw.url, apiKey: KEY });
  const started = await client.POST('/api/index/start', { body: { repo: 'shop' } });
  assert.ok(started.response.ok, JSON.stringify(started.error));
  await until(async () => {
    const { data } = await client.GET('/api/index/status', { params: { query: { repo: 'shop' } } });
    return (data as { metadata?: { finished_at?: string } } | undefined)?.metadata?.finished_at ? true : undefined;
  }, 60_000, 100);
  const found = await client.GET('/api/search', { params: { query: { q: 'print a shipping label', repo: 'shop' } } });
  assert.is(found.response.status, 200, JSON.stringify(found.error));
  assert.ok(found.data!.results.some((r) => r.path === 'src/shipping/label-printer.ts'), JSON.stringify(found.data));

  const tokens: string[] = [];
  const answer = await client.streamAnswer({ question: 'how is a shipping label printed?', repo: 'shop' }, { onToken: (t) => tokens.push(t) });
  assert.ok(answer.citations.some((c) => c.path === 'src/shipping/label-printer.ts'), JSON.stringify(answer));
  assert.ok(tokens.length > 0, 'tokens streamed before the final answer');
  assert.is(tokens.join(''), answer.answer);
  try {
    await client.streamAnswer({ question: 'x', repo: 'no-such-repo' });
    assert.unreachable('unknown repository');
  } catch (err) {
    assert.is((err as ApiError).status, 404);
    assert.ok((err as ApiError).detail);
  }
});

test.run();
