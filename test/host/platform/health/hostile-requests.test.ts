import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { get, request } from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { removeDir, tempDir, until } from '../../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../../support/child-gateway.js';

// No single request stalls the gateway (issue 35, the hostile review): while each hostile input
// runs, /health stays within a ratio of its own idle pace on this machine (p95 under 20 times the
// idle median, with a floor of the median plus 250 ms for a loaded machine), each input gets its
// clear error, and the gateway process's memory stays bounded.
const FACTOR = 20;
const FLOOR_EXTRA_MS = 250;
/** Peak RSS the hostile inputs may add to the gateway's (eight 16 MB /mcp bodies took 4.3 GB). */
const RSS_GROWTH_LIMIT = 1024 * 1024 * 1024;
const MB = 1024 * 1024;
/** Just under MAX_FILE_SIZE_MB (10): the multipart envelope must fit too. */
const AT_LIMIT = 10 * MB - 4096;

let dataDir: string;
let gw: ChildGateway;
let idleMedianMs = 0;

const fillerPdf = (bytes: number) => Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(bytes - 9, 'A')]);
/** A valid plain-text file: many short lines, thousands of pages. */
const textFile = (bytes: number) => Buffer.alloc(bytes, 'The quick brown fox jumps over the lazy dog, line after line.\n');

/** A multipart body of `to` and `file`, built before the clock starts so the test's own work does not slow its probes. */
function multipart(file: Buffer, name: string): { body: Buffer; type: string } {
  const boundary = 'hostile-boundary-7d1e';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n+15551230000\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]), type: `multipart/form-data; boundary=${boundary}` };
}

/**
 * The upload over node:http on a connection of its own, answered as a fetch Response: an answer
 * that arrives while the body is still being written is read (fetch drops it when the write then
 * fails), and the failure names the answer's absence.
 */
function upload(route: '/fax' | '/fax/prepare', form: { body: Buffer; type: string }): Promise<Response> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(`${gw.url}${route}`, { method: 'POST', agent: false, headers: { 'content-type': form.type, 'content-length': form.body.length } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: { 'content-type': String(res.headers['content-type'] ?? '') } })));
      res.on('error', reject);
    });
    req.on('error', (err) => {
      if (!answered) reject(new Error(`${route}: no answer (${err.message})`));
    });
    req.end(form.body);
  });
}

/** A JSON-RPC tools/call whose arguments nest `depth` arrays: 2 bytes a level, just under 16 MB. */
function nestedMessage(depth: number): string {
  return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"q":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
}

/** One GET /health on a connection of its own (no keep-alive socket the server may be closing). */
function healthMs(): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(`${gw.url}/health`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`/health answered ${res.statusCode}`))));
    }).on('error', reject);
  });
}

/** The status of a GET on a connection of its own. */
function statusOf(route: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(`${gw.url}${route}`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

test.before(async () => {
  dataDir = tempDir();
  gw = await startChildGateway({
    DATA_DIR: dataDir,
    ENV_FILE: path.join(dataDir, 'none.env'),
    FAX_DISABLED: 'true',
    // A short budget keeps the test quick; what it proves is that the work is stopped, off the event loop.
    FAX_DOCUMENT_BUDGET_MS: '2000',
    FAX_DOCUMENT_BUDGET_MS_PER_MB: '500',
  });
  // Routes answer 503 plugins_loading until the plugins are loaded (/openapi.json among them).
  // Asked on connections of their own: a keep-alive socket left in fetch's pool could be closed by
  // the gateway just as the first upload reuses it, which fetch reports as a failure of that upload.
  await until(async () => (await statusOf('/openapi.json')) === 200, 60_000, 100);
  for (let i = 0; i < 5; i++) await healthMs();
  const idle: number[] = [];
  for (let i = 0; i < 30; i++) idle.push(await healthMs());
  idleMedianMs = percentile(idle, 0.5);
});
test.after(async () => {
  await gw?.kill('SIGKILL');
  if (dataDir) removeDir(dataDir);
});

/** A refusal in the API's shape with one of `codes`, or (for a valid document) `ok`. */
async function assertAnswer(what: string, res: Response, expected: { status: number; code?: string }[]): Promise<void> {
  const text = await res.text();
  const code = res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as { code?: string }).code : undefined;
  assert.ok(
    expected.some((e) => e.status === res.status && (e.code === undefined || e.code === code)),
    `${what}: answered ${res.status} ${text.slice(0, 300)}; expected one of ${expected.map((e) => `${e.status} ${e.code ?? ''}`).join(', ')}`,
  );
}

test('hostile documents and JSON-RPC messages, all at once, leave /health responsive and the memory bounded', async () => {
  const rssBefore = gw.peakRss();
  const refusedPdf = [
    { status: 400, code: 'invalid_document' },
    { status: 422, code: 'document_too_complex' },
  ];
  const small = multipart(fillerPdf(3 * MB), 'filler.pdf');
  const large = multipart(fillerPdf(AT_LIMIT), 'filler.pdf');
  const text = multipart(textFile(AT_LIMIT), 'long.txt');
  const nested = new Uint8Array(Buffer.from(nestedMessage(Math.floor((16 * MB - 200) / 2))));
  const hostile: Array<Promise<void>> = [
    upload('/fax', small).then((r) => assertAnswer('POST /fax, 3 MB filler PDF', r, refusedPdf)),
    upload('/fax', large).then((r) => assertAnswer('POST /fax, 10 MB filler PDF', r, refusedPdf)),
    upload('/fax/prepare', small).then((r) => assertAnswer('POST /fax/prepare, 3 MB filler PDF', r, refusedPdf)),
    upload('/fax/prepare', large).then((r) => assertAnswer('POST /fax/prepare, 10 MB filler PDF', r, refusedPdf)),
    // Valid: converted when the budget allows it on this machine, refused as too complex when not.
    upload('/fax', text).then((r) => assertAnswer('POST /fax, 10 MB text file', r, [{ status: 202 }, { status: 422, code: 'document_too_complex' }])),
    ...Array.from({ length: 8 }, async (_, i) => {
      const res = await fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: nested });
      const body = await res.text();
      assert.is(res.status, 400, `/mcp #${i}: ${body.slice(0, 300)}`);
      const answer = JSON.parse(body) as { jsonrpc?: string; error?: { code?: number; data?: { code?: string } } };
      assert.is(answer.jsonrpc, '2.0', `/mcp #${i} answers a JSON-RPC error`);
      assert.is(answer.error?.code, -32600);
      assert.is(answer.error?.data?.code, 'json_too_deep');
    }),
  ];
  let done = false;
  const settled = Promise.allSettled(hostile).finally(() => (done = true));
  const seen: number[] = [];
  while (!done) {
    seen.push(await healthMs());
    await new Promise((r) => setTimeout(r, 5));
  }
  const allowedMs = Math.max(idleMedianMs * FACTOR, idleMedianMs + FLOOR_EXTRA_MS);
  const p95 = percentile(seen, 0.95);
  assert.ok(seen.length >= 10, `/health was probed while the requests ran (${seen.length} probes)`);
  assert.ok(p95 <= allowedMs, `/health p95 ${Math.round(p95)} ms while the hostile requests ran (idle median ${idleMedianMs.toFixed(1)} ms, allowed ${Math.round(allowedMs)} ms; slowest ${Math.round(Math.max(...seen))} ms)`);
  const growth = gw.peakRss() - rssBefore;
  assert.ok(growth < RSS_GROWTH_LIMIT, `the gateway's peak RSS grew by ${Math.round(growth / MB)} MB (allowed ${RSS_GROWTH_LIMIT / MB} MB)`);
  // A failed request names itself and shows the gateway's last log lines.
  const failures = (await settled).flatMap((outcome, i) => (outcome.status === 'rejected' ? [`hostile request #${i}: ${(outcome.reason as Error).message} (${String((outcome.reason as { cause?: unknown }).cause ?? 'no cause')})`] : []));
  assert.equal(failures, [], `${failures.join('\n')}\n${gw.output().slice(-2000)}`);
});

test('the gateway still converts a valid document after the hostile ones', async () => {
  const res = await upload('/fax', multipart(textFile(4096), 'note.txt'));
  assert.is(res.status, 202, await res.clone().text());
});

test('a JSON body of the API nested deeper than JSON_MAX_DEPTH is refused 400 json_too_deep', async () => {
  const res = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"name":"k","scopes":${'['.repeat(100_000)}${']'.repeat(100_000)}}` });
  const body = (await res.json()) as { code?: string; detail?: string };
  assert.is(res.status, 400, JSON.stringify(body));
  assert.is(body.code, 'json_too_deep');
});

test.run();
