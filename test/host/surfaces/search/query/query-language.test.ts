import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, tempDir, type TestGateway } from '../../../../support/gateway.js';
import { smallRepo, writeRepoFile } from '../search-repo-fixture.js';

const KEY = 'bootstrap-key-query-language-1';
const demo = smallRepo();
const other = tempDir('search-other-');
writeRepoFile(other, 'service/billing.py', 'class InvoiceStore:\n    """Keeps invoices."""\n\n    def reload_queue(self):\n        return "ReloadQueue in python"\n');
writeRepoFile(other, 'web/app.js', 'export function renderInvoice(el) {\n  el.textContent = "ünï ReloadQueue";\n}\n');
let gw: TestGateway;

async function q(params: Record<string, string>, key = KEY): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}/api/search?${new URLSearchParams(params)}`, { headers: { 'x-api-key': key } });
  return { status: res.status, body: await json(res) };
}

test.before(async () => {
  gw = await startGateway({ API_KEY: KEY, REPOS: JSON.stringify({ demo, other }), REPO: 'demo' });
  for (const repo of ['demo', 'other']) {
    const res = await fetch(`${gw.url}/api/index/start`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ repo }) });
    assert.is(res.status, 202);
  }
  for (const repo of ['demo', 'other']) {
    await until(repo);
  }
});
test.after(async () => {
  await gw.close();
  removeDir(demo);
  removeDir(other);
});

async function until(repo: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const res = await fetch(`${gw.url}/api/index/status?repo=${repo}`, { headers: { 'x-api-key': KEY } });
    const body = await json(res);
    if (body.metadata?.finished_at) return;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run of ${repo} never finished`);
}

test('a phrase is an exact search: line, column and byte offset of each match, every repository when none is named', async () => {
  const res = await q({ q: '"ReloadQueue"' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'exact');
  assert.is(res.body.repo, '*');
  const byPath = new Map(res.body.results.map((r: any) => [`${r.repo}:${r.path}`, r]));
  assert.ok(byPath.has('demo:core/kernel/reload-queue.ts'));
  assert.ok(byPath.has('other:service/billing.py'));
  const js: any = byPath.get('other:web/app.js');
  // "  el.textContent = "ünï ReloadQueue";" : the column counts characters, the byte offset UTF-8 bytes.
  const m = js.matches[0];
  assert.is(m.line, 2);
  assert.is(m.column, 25);
  const content = 'export function renderInvoice(el) {\n  el.textContent = "ünï ReloadQueue";\n}\n';
  assert.is(m.byte_offset, Buffer.from(content).indexOf('ReloadQueue'));
  assert.is(m.byte_length, 11);
  assert.equal(res.body.repos.map((g: any) => g.repo).sort(), ['demo', 'other']);
});

test('case is folded unless case:yes; case:auto is yes for a capital', async () => {
  const folded = await q({ q: '"reloadqueue"' });
  assert.ok(folded.body.results.length >= 3);
  const exact = await q({ q: '"reloadqueue" case:yes' });
  assert.is(exact.body.results.length, 0);
  const auto = await q({ q: '"Reload_queue" case:auto' });
  assert.is(auto.body.results.length, 0, 'the capital makes it case-sensitive');
  assert.is((await q({ q: '"reload_queue" case:auto' })).body.results[0].path, 'service/billing.py');
});

test('a regex is confirmed on the content; repo:, file:, lang: and exclusions filter', async () => {
  const re = await q({ q: '/def \\w+_queue\\(/' });
  assert.equal(re.body.results.map((r: any) => r.path), ['service/billing.py']);
  assert.is(re.body.results[0].matches[0].line, 4);
  assert.is(re.body.results[0].matches[0].column, 5);
  assert.equal((await q({ q: '"ReloadQueue" repo:^demo$' })).body.results.map((r: any) => r.repo), ['demo']);
  assert.equal((await q({ q: '"ReloadQueue" file:\\.py$' })).body.results.map((r: any) => r.path), ['service/billing.py']);
  assert.equal((await q({ q: '"ReloadQueue" lang:js' })).body.results.map((r: any) => r.path), ['web/app.js']);
  const notPy = (await q({ q: '"ReloadQueue" -file:\\.py$ repo:other' })).body.results.map((r: any) => r.path);
  assert.equal(notPy, ['web/app.js']);
  const notWord = (await q({ q: '"ReloadQueue" -python repo:other' })).body.results.map((r: any) => r.path);
  assert.equal(notWord, ['web/app.js']);
  // A word beside a phrase must occur too.
  assert.equal((await q({ q: '"ReloadQueue" invoices' })).body.results.map((r: any) => r.path), ['service/billing.py']);
});

test('sym: finds definitions; bare words with a filter stay the ranked search', async () => {
  const sym = await q({ q: 'sym:InvoiceStore' });
  assert.is(sym.body.mode, 'symbols');
  assert.is(sym.body.results[0].path, 'service/billing.py');
  assert.equal(sym.body.results[0].symbol, { name: 'InvoiceStore', kind: 'class', container: null });
  const method = await q({ q: 'sym:reload_queue' });
  assert.equal(method.body.results[0].symbol, { name: 'reload_queue', kind: 'function', container: 'InvoiceStore' });
  const ranked = await q({ q: 'reload queue lang:python' });
  assert.is(ranked.body.mode, 'ranked');
  assert.ok(ranked.body.results.length > 0);
  assert.ok(ranked.body.results.every((r: any) => r.path.endsWith('.py')), JSON.stringify(ranked.body.results));
  // Plain words: the spec's search of REPO, no query-language fields.
  const plain = await q({ q: 'reload queue' });
  assert.is(plain.body.repo, 'demo');
  assert.is(plain.body.mode, undefined);
});

test('malformed queries answer 400 query_invalid with the position', async () => {
  const cases: Array<[string, number, RegExp]> = [
    ['"open phrase', 1, /never closed/],
    ['x /a(b/', 4, /not a valid regular expression/],
    ['x case:maybe', 8, /yes, no or auto/],
    ['x lang:cobol', 8, /not a language/],
    ['x file:', 8, /needs a value/],
    ['x file:a(', 8, /not a valid regular expression/],
    ['x rev:a rev:b', 13, /second rev/],
    ['repo:demo', 1, /nothing to search for/],
    ['-word', 1, /nothing to search for/],
    ['x ""', 3, /empty phrase/],
  ];
  for (const [text, position, reason] of cases) {
    const res = await q({ q: text });
    assert.is(res.status, 400, text);
    assert.is(res.body.code, 'query_invalid', text);
    assert.match(res.body.detail, new RegExp(`^query: at position ${position}: `), `${text}: ${res.body.detail}`);
    assert.match(res.body.detail, reason, text);
  }
  // `--flag` and a path with slashes stay words.
  assert.is((await q({ q: 'the --version flag' })).status, 200);
  assert.is((await q({ q: 'handled at /health/ready' })).status, 200);
});

test('rev: of a revision never indexed answers 404 revision_not_indexed; a key without search:read is refused', async () => {
  const res = await q({ q: '"ReloadQueue" repo:demo rev:v9' });
  assert.is(res.status, 404);
  assert.is(res.body.code, 'revision_not_indexed');
  const mint = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fax-only', scopes: ['fax:read'] }) });
  const { token } = await json(mint);
  assert.is((await q({ q: '"ReloadQueue"' }, token)).status, 403);
});

test.run();
