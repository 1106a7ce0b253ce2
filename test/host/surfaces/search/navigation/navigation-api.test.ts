import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { writeRepoFile } from '../search-repo-fixture.js';

const repo = tempDir('nav-repo-');
writeRepoFile(repo, 'src/queue.ts', 'export class ReloadQueue {\n  request(): void {\n    flushPending();\n  }\n}\nexport function flushPending(): void {}\n');
writeRepoFile(repo, 'web/view.js', 'function renderRow(row) {\n  return flushPending(row);\n}\n');
writeRepoFile(repo, 'svc/store.py', 'class InvoiceStore:\n    def save(self, invoice):\n        return persist(invoice)\n\ndef persist(invoice):\n    return invoice\n');
writeRepoFile(repo, 'cmd/main.go', 'package main\n\ntype Server struct{}\n\nfunc (s *Server) Serve() error { return listen() }\n\nfunc listen() error { return nil }\n');
writeRepoFile(repo, 'lib/buf.c', 'struct buffer { int len; };\n\nint buffer_len(struct buffer *b) {\n  return b->len;\n}\n\nint total(struct buffer *b) { return buffer_len(b); }\n');
writeFileSync(path.join(repo, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1, 2, 3]));
writeRepoFile(repo, 'big.txt', 'x'.repeat(3000) + '\n');
let gw: TestGateway;

async function get(p: string, params: Record<string, string>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}${p}?${new URLSearchParams(params)}`);
  return { status: res.status, body: await json(res) };
}

test.before(async () => {
  gw = await startGateway({ REPOS: JSON.stringify({ nav: repo }), REPO: 'nav', INDEX_MAX_FILE_BYTES: '2048' });
  assert.is((await get('/api/files', { path: 'src/queue.ts' })).body.code, 'code_index_missing', 'before any run');
  // A malformed query is refused as such whatever the index's state.
  const early = await get('/api/grep', { pattern: 'a(', regex: 'true' });
  assert.equal([early.status, early.body.code], [400, 'query_invalid'], 'a bad regex before any run');
  assert.is((await get('/api/grep', { pattern: 'a' })).body.code, 'code_index_missing', 'a good one before any run');
  assert.is((await fetch(`${gw.url}/api/index/start`, { method: 'POST' })).status, 202);
  await until(async () => ((await get('/api/index/status', {})).body.metadata?.finished_at ? true : undefined), 60_000, 50);
});
test.after(async () => {
  await gw.close();
  removeDir(repo);
});

test('definitions in TypeScript, JavaScript, Python, Go and C, with kind, line and container', async () => {
  const cases: Array<[string, string, number, string, string | null]> = [
    ['ReloadQueue', 'src/queue.ts', 1, 'class', null],
    ['ReloadQueue.request', 'src/queue.ts', 2, 'method', 'ReloadQueue'],
    ['renderRow', 'web/view.js', 1, 'function', null],
    ['InvoiceStore.save', 'svc/store.py', 2, 'function', 'InvoiceStore'],
    ['persist', 'svc/store.py', 5, 'function', null],
    ['Serve', 'cmd/main.go', 5, 'method', null],
    ['Server', 'cmd/main.go', 3, 'type', null],
    ['buffer_len', 'lib/buf.c', 3, 'function', null],
    ['buffer', 'lib/buf.c', 1, 'struct', null],
  ];
  for (const [name, file, line, kind, container] of cases) {
    const res = await get('/api/definitions', { name });
    assert.is(res.status, 200, name);
    assert.equal(res.body.definitions.map((d: any) => [d.path, d.line, d.kind, d.container]), [[file, line, kind, container]], `${name}: ${JSON.stringify(res.body)}`);
  }
  assert.equal((await get('/api/definitions', { name: 'nothingHere' })).body.definitions, []);
});

test('references in each language: uses, not the definition', async () => {
  const where = async (name: string) => (await get('/api/references', { name })).body.references.map((r: any) => `${r.path}:${r.line}`);
  assert.equal(await where('flushPending'), ['src/queue.ts:3', 'web/view.js:2']);
  assert.equal(await where('persist'), ['svc/store.py:3']);
  assert.equal(await where('listen'), ['cmd/main.go:5']);
  assert.equal(await where('buffer_len'), ['lib/buf.c:7']);
  const one = (await get('/api/references', { name: 'persist' })).body.references[0];
  assert.is(one.text, '        return persist(invoice)');
  assert.is(one.column, 16);
});

test('symbol search: an exact name first, then longer ones', async () => {
  const res = await get('/api/symbols', { q: 'buffer' });
  assert.equal(res.body.symbols.slice(0, 2).map((s: any) => s.name), ['buffer', 'buffer_len']);
  assert.equal((await get('/api/symbols', { q: 'serve', lang: 'go' })).body.symbols.map((s: any) => s.name), ['Serve', 'Server']);
});

test('files and ranges are read from the index; traversal, binary and oversized files are refused with the reason', async () => {
  const whole = await get('/api/files', { path: 'svc/store.py' });
  assert.is(whole.status, 200);
  assert.is(whole.body.total_lines, 6);
  assert.is(whole.body.language, 'python');
  const range = await get('/api/files', { path: 'svc/store.py', start_line: '2', end_line: '3' });
  assert.is(range.body.content, '    def save(self, invoice):\n        return persist(invoice)');
  for (const bad of ['../etc/passwd', 'src/../../x', '/etc/passwd', './src/./queue.ts']) {
    const res = await get('/api/files', { path: bad });
    assert.is(res.status, 422, bad);
    assert.is(res.body.code, 'validation_error', bad);
  }
  const binary = await get('/api/files', { path: 'logo.png' });
  assert.is(binary.status, 404);
  assert.is(binary.body.code, 'file_not_indexed');
  assert.match(binary.body.detail, /binary/);
  const big = await get('/api/files', { path: 'big.txt' });
  assert.match(big.body.detail, /oversized: 3001 bytes/);
  assert.match((await get('/api/files', { path: 'src/nope.ts' })).body.detail, /no such file/);
  assert.is((await get('/api/files', { path: 'svc/store.py', start_line: '9' })).status, 422);
});

test('a directory lists its directories, then its files; recursive lists every file under it', async () => {
  const root = await get('/api/tree', {});
  assert.equal(root.body.entries.map((e: any) => `${e.type}:${e.name}`), ['dir:cmd', 'dir:lib', 'dir:src', 'dir:svc', 'dir:web']);
  const lib = await get('/api/tree', { path: 'lib' });
  assert.equal(lib.body.entries.map((e: any) => [e.path, e.type, e.language]), [['lib/buf.c', 'file', 'c']]);
  assert.is((await get('/api/tree', { recursive: 'true' })).body.entries.length, 5);
  assert.is((await get('/api/tree', { path: '../..' })).status, 422);
  assert.is((await get('/api/tree', { path: 'nope' })).body.code, 'file_not_indexed');
});

test('grep: literal and regex matches with offsets, a path filter, and the query language\'s 400 for a bad regex', async () => {
  const lit = await get('/api/grep', { pattern: 'return b->len' });
  assert.equal(lit.body.files.map((f: any) => [f.path, f.matches[0].line, f.matches[0].byte_offset]), [['lib/buf.c', 4, 'struct buffer { int len; };\n\nint buffer_len(struct buffer *b) {\n  '.length]]);
  const re = await get('/api/grep', { pattern: '^func \\(?\\w', regex: 'true', path: '\\.go$' });
  assert.equal(re.body.files[0].matches.map((m: any) => m.line), [5, 7]);
  const bad = await get('/api/grep', { pattern: 'a(', regex: 'true' });
  assert.is(bad.status, 400);
  assert.is(bad.body.code, 'query_invalid');
});

test('an edit is seen by the next run: a removed file leaves the index, a new definition is found', async () => {
  writeRepoFile(repo, 'src/added.ts', 'export function addedLater(): number { return 1; }\n');
  removeDir(path.join(repo, 'web'));
  assert.is((await fetch(`${gw.url}/api/index/start`, { method: 'POST' })).status, 202);
  await until(async () => {
    const s = (await get('/api/index/status', {})).body;
    return s.metadata?.finished_at && s.run?.state !== 'running' ? true : undefined;
  }, 60_000, 50);
  await until(async () => ((await get('/api/definitions', { name: 'addedLater' })).body.definitions.length ? true : undefined), 10_000, 50);
  assert.equal((await get('/api/definitions', { name: 'renderRow' })).body.definitions, []);
  assert.equal((await get('/api/references', { name: 'flushPending' })).body.references.map((r: any) => r.path), ['src/queue.ts']);
});

test.run();
