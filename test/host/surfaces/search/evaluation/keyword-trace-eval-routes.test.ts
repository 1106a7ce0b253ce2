import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeDir, startGateway, tempDir, type TestGateway } from '../../../../support/gateway.js';

// A small repository written by the test: "invoice" and "ledger" are its topics.
const repoDir = tempDir('switchboard-kw-repo-');
const files: Record<string, string> = {
  'src/invoice.ts': 'export function renderInvoice(invoiceId: string) { return ledgerTotal(invoiceId); }\n',
  'src/ledger.ts': 'export function ledgerTotal(invoiceId: string) { return invoiceId.length; }\nexport const ledgerName = "ledger";\n',
  'src/payment.ts': 'import { renderInvoice } from "./invoice";\nexport function payInvoice(invoiceId: string) { return renderInvoice(invoiceId) + ledgerFee(); }\nfunction ledgerFee() { return 1; }\n',
  'src/customer.ts': 'export interface Customer { name: string; email: string }\n',
  'src/address.ts': 'export interface Address { street: string; city: string }\n',
  'README.md': '# Billing\n\nInvoices and the ledger.\n',
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(repoDir, rel)), { recursive: true });
  writeFileSync(path.join(repoDir, rel), text);
}

let gw: TestGateway;
const get = (p: string) => fetch(`${gw.url}${p}`);
const post = (p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ billing: repoDir }), REPO: 'billing', KEYWORDS_MIN_FREQ: '2', KEYWORDS_MAX_PER_REPO: '5', TRACE_RETENTION: '3', LLM_GATEWAY_API_KEY: 'sk-trace-secret-0123456789', HOSTED_JUDGE_API_KEY: 'hk-judge-env-secret-42' }, { watch: false });
  const { runs, runStore } = gw.gateway.surfaces.search;
  const run = await runs.start('billing', false);
  await runs.settled(run.id);
  assert.is((await runStore.get(run.id))?.state, 'finished');
});

test('GET /api/keywords lists scored keywords and when they were generated; files are written under out/keywords', async () => {
  const res = await get('/api/keywords?repo=billing');
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.repo, 'billing');
  assert.ok(!Number.isNaN(Date.parse(body.generated_at)));
  assert.is(body.refresh_hours, 24);
  const terms = body.keywords.map((k: { term: string }) => k.term);
  // "invoice" is in 3 of 6 files; "ledger" in 4, over the half of the files a keyword may reach.
  assert.ok(terms.includes('invoice') && !terms.includes('ledger'), terms.join(','));
  assert.ok(body.keywords.length <= 5);
  assert.ok(body.keywords.every((k: { score: number; df: number }) => k.score > 0 && k.df >= 2));
  const global = JSON.parse(readFileSync(path.join(gw.dataDir, 'out/keywords/discriminative_keywords.json'), 'utf8'));
  assert.equal(global.billing, terms);
  assert.ok(existsSync(path.join(gw.dataDir, 'out/keywords/repos/billing.json')));
  // State under DATA_DIR is the gateway user's alone: files 0600, the directories made for them 0700.
  for (const file of ['out/keywords/discriminative_keywords.json', 'out/keywords/repos/billing.json', 'index-stamps/billing.json']) {
    assert.is(statSync(path.join(gw.dataDir, file)).mode & 0o777, 0o600, file);
  }
  for (const dir of ['out/keywords', 'out/keywords/repos', 'index-stamps']) assert.is(statSync(path.join(gw.dataDir, dir)).mode & 0o777, 0o700, dir);
});

test('POST /api/keywords/rebuild regenerates inside the window; GET serves the cache', async () => {
  const first = await (await get('/api/keywords')).json();
  const again = await (await get('/api/keywords')).json();
  assert.is(again.generated_at, first.generated_at, 'cached inside the window');
  await new Promise((r) => setTimeout(r, 5));
  const rebuilt = await post('/api/keywords/rebuild?repo=billing');
  assert.is(rebuilt.status, 200);
  assert.ok(Date.parse((await rebuilt.json()).generated_at) > Date.parse(first.generated_at));
});

test('concurrent rebuilds of one repository share one build', async () => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => post('/api/keywords/rebuild?repo=billing')));
  for (const res of answers) assert.is(res.status, 200);
  const generated = new Set((await Promise.all(answers.map((r) => r.json()))).map((b) => b.generated_at));
  // Twenty requests sent at once: a build per request would give twenty stamps.
  assert.ok(generated.size < answers.length, `${generated.size} builds for ${answers.length} requests`);
});

test('keyword settings are cached until POST /api/keywords/reload', async () => {
  const update = await fetch(`${gw.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ KEYWORDS_BOOST: 2 }) });
  assert.ok(update.status < 300, `config update ${update.status}`);
  assert.is(gw.gateway.surfaces.search.keywords.settings().boost, 1, 'not re-read by a config write (the default, 1: off)');
  const reload = await post('/api/keywords/reload');
  assert.is(reload.status, 200);
  assert.equal(await reload.json(), { max_per_repo: 5, min_freq: 2, boost: 2, refresh_hours: 24 });
});

test('GET /api/traces/latest answers a small 404 before any trace exists', async () => {
  const res = await get('/api/traces/latest?repo=billing');
  assert.is(res.status, 404);
  assert.equal(await res.json(), { detail: 'no readable trace for repository "billing"', code: 'trace_not_found' });
  const list = await (await get('/api/traces?repo=billing')).json();
  assert.equal(list, { repo: 'billing', files: [] });
});

test('a search with trace=true writes a trace that the trace routes list and serve, without secrets', async () => {
  const res = await get('/api/search?q=where+is+the+invoice+rendered&repo=billing&trace=true');
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.results[0].path, 'src/invoice.ts');
  assert.match(body.trace, /^out\/billing\/traces\/\d{8}T\d{6}Z_[0-9a-f]{8}\.json$/);
  const list = await (await get('/api/traces?repo=billing')).json();
  assert.is(list.files[0].path, body.trace);
  assert.is(list.files[0].name, path.basename(body.trace));
  const latest = await (await get('/api/traces/latest?repo=billing')).json();
  assert.is(latest.question, 'where is the invoice rendered');
  assert.equal(latest.events.map((e: { kind: string }) => e.kind), ['search.request', 'search.hits', 'search.done']);
  assert.is(latest.events[1].data[0].path, 'src/invoice.ts');
  assert.ok(latest.events[1].data[0].signals.bm25 > 0, 'per-signal scores are traced');
  // "invoice" is a keyword the query names: its hits carry KEYWORDS_BOOST (2 since the reload above)
  assert.is(latest.events[1].data[0].signals.keyword_boost, 2);
  // One trace by the name the list gives; a name that is not a trace file's is a 404, never a path.
  const byName = await get(`/api/traces/${encodeURIComponent(list.files[0].name)}?repo=billing`);
  assert.is(byName.status, 200);
  assert.is((await byName.json()).id, latest.id);
  for (const bad of ['..%2F..%2Fconfig.json', 'x.json', `${'a'.repeat(95)}.json`]) {
    const res = await get(`/api/traces/${bad}?repo=billing`);
    assert.is(res.status, 404, bad);
    assert.is((await res.json()).code, 'trace_not_found');
  }
  assert.is((await get(`/api/traces/${'a'.repeat(101)}?repo=billing`)).status, 400);
  for (const name of readdirSync(path.join(gw.dataDir, 'out/billing/traces'))) {
    assert.not.match(readFileSync(path.join(gw.dataDir, 'out/billing/traces', name), 'utf8'), /sk-trace-secret/);
  }
});

test('a trace masks every secret the gateway knows: an environment-only plugin credential and a plugin secret from the config store', async () => {
  const pluginSecret = 'https://hooks.example.com/T000/stored-plugin-secret-77';
  const put = await fetch(`${gw.url}/plugins/alert-webhook/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { url: pluginSecret } }) });
  assert.is(put.status, 200);
  const q = `invoice hk-judge-env-secret-42 and ${pluginSecret} and sk-trace-secret-0123456789`;
  const res = await get(`/api/search?q=${encodeURIComponent(q)}&repo=billing&trace=true`);
  assert.is(res.status, 200);
  const latest = await (await get('/api/traces/latest?repo=billing')).json();
  assert.is(latest.question, 'invoice *** and *** and ***');
  const text = readFileSync(path.join(gw.dataDir, (await res.json()).trace), 'utf8');
  for (const secret of ['hk-judge-env-secret-42', 'stored-plugin-secret-77', 'sk-trace-secret']) assert.not.ok(text.includes(secret), secret);
  await fetch(`${gw.url}/plugins/alert-webhook/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false, settings: { url: null } }) });
});

test('the keyword boost applies only to queries that name a keyword', async () => {
  const body = await (await get('/api/search?q=customer+email+street&repo=billing&trace=true')).json();
  const latest = await (await get('/api/traces/latest?repo=billing')).json();
  assert.is(latest.id, path.basename(body.trace).slice(17, 25));
  assert.ok(latest.events[1].data.length > 0);
  assert.ok(latest.events[1].data.every((h: { signals: Record<string, number> }) => h.signals.keyword_boost === undefined));
});

test('only the TRACE_RETENTION newest traces are kept', async () => {
  for (let i = 0; i < 4; i++) assert.is((await get(`/api/search?q=ledger+${i}&repo=billing&trace=1`)).status, 200);
  const list = await (await get('/api/traces?repo=billing')).json();
  assert.is(list.files.length, 3);
  assert.is(readdirSync(path.join(gw.dataDir, 'out/billing/traces')).length, 3);
});

test('POST /api/eval/run reports the figures and writes them in a trace', async () => {
  const golden = [
    { q: 'where is the invoice rendered?', repo: 'billing', expect_paths: ['src/invoice.ts'] },
    { q: 'ledger total', expect_paths: ['ledger.ts'] },
    { q: 'customer email', repo: 'billing', expect_paths: ['no-such-file.ts'] },
  ];
  const res = await post('/api/eval/run', { golden });
  assert.is(res.status, 200);
  const report = await res.json();
  assert.is(report.summary.questions, 3);
  assert.is(report.summary.hit_at_1, 0.6667);
  assert.is(report.summary.hit_at_10, 0.6667);
  assert.is(report.questions[2].rank, 0);
  assert.ok(report.summary.latency_ms.p95 >= report.summary.latency_ms.p50);
  const trace = JSON.parse(readFileSync(path.join(gw.dataDir, report.traces[0]), 'utf8'));
  assert.is(trace.events.filter((e: { kind: string }) => e.kind === 'eval.question').length, 3);
});

test('bad input: unknown repository 404, non-plain repository name 422, malformed golden set 422 naming the entry', async () => {
  for (const p of ['/api/keywords?repo=nope', '/api/traces?repo=nope', '/api/traces/latest?repo=nope']) {
    const res = await get(p);
    assert.is(res.status, 404, p);
    assert.is((await res.json()).code, 'repository_not_found');
  }
  assert.is((await post('/api/keywords/rebuild?repo=nope')).status, 404);
  for (const bad of ['../x', '%2Fetc', 'a%2Fb']) {
    for (const p of [`/api/keywords?repo=${bad}`, `/api/traces?repo=${bad}`, `/api/traces/latest?repo=${bad}`]) {
      const res = await get(p);
      assert.is(res.status, 422, p);
      assert.match((await res.json()).detail, /repo/);
    }
  }
  const unknown = await post('/api/eval/run', { golden: [{ q: 'x', repo: 'nope', expect_paths: ['a'] }] });
  assert.is(unknown.status, 404);
  const malformed = await post('/api/eval/run', { golden: [{ q: 'x', expect_paths: ['a'] }, { q: 'y', expect_paths: [] }] });
  assert.is(malformed.status, 422);
  assert.match((await malformed.json()).detail, /golden\.1\.expect_paths/);
  const notArray = await post('/api/eval/run', { golden: { q: 'x' } });
  assert.is(notArray.status, 422);
  const badSearch = await get('/api/search?q=x&trace=maybe');
  assert.is(badSearch.status, 422);
  // nothing was left behind by the refused requests
  assert.not.ok(existsSync(path.join(gw.dataDir, 'out/nope')));
});

test('every new endpoint is in /openapi.json with its schemas', async () => {
  const doc = await (await get('/openapi.json')).json();
  for (const [p, method] of [['/api/keywords', 'get'], ['/api/keywords/rebuild', 'post'], ['/api/keywords/reload', 'post'], ['/api/traces', 'get'], ['/api/traces/latest', 'get'], ['/api/traces/{name}', 'get'], ['/api/eval/run', 'post']] as const) {
    const op = doc.paths[p]?.[method];
    assert.ok(op, `${method} ${p}`);
    assert.ok(op.responses['200'].content['application/json'].schema, `${p} 200 schema`);
  }
  assert.ok(doc.paths['/api/eval/run'].post.requestBody.content['application/json'].schema);
});

test.after(async () => {
  await gw?.close();
  removeDir(repoDir);
});
test.run();
