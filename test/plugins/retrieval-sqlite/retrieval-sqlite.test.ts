import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { conformance } from 'switchboard/sdk/testing';
import retrievalSqlite, { createSqliteRetrieval } from '../../../plugins/retrieval-sqlite/index.js';
import { ftsQuery } from '../../../plugins/retrieval-sqlite/collection-search.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { fakeEmbedding } from '../../fakes/llm-gateway-fake.js';
import type { RetrievalDocument } from '../../../core/sdk/index.js';
import Database from 'better-sqlite3';
import { indexPathTerms, indexTerms } from 'switchboard/sdk/retrieval';
import { collectionFile } from '../../../plugins/retrieval-sqlite/collection-db.js';

const dataDir = tempDir();
const backend = createSqliteRetrieval(`${dataDir}/direct`);
test.after(() => {
  backend.close();
  removeDir(dataDir);
});

for (const c of conformance.retrieval({ plugin: retrievalSqlite, dataDir, enrichment: true, metadata: true })) test(c.name, c.run);

const doc = (path: string, text: string, extra: Record<string, unknown> = {}): RetrievalDocument => ({
  id: `${path}#${String(extra.start_line ?? 1)}`,
  text,
  metadata: { path, start_line: 1, end_line: text.split('\n').length, language: 'typescript', ...extra },
});

test('an identifier query finds the definition whether written camelCase, snake_case or as words', async () => {
  await backend.index('ids', [
    doc('src/http/headers.ts', 'export function parseHttpHeader(line: string) {\n  return line.split(":");\n}', { symbol: 'parseHttpHeader' }),
    doc('src/other.ts', 'export const unrelated = 1; // header of the page'),
  ]);
  for (const q of ['parseHttpHeader', 'parse_http_header', 'parse http header', 'ParseHTTPHeader']) {
    const hits = await backend.search('ids', q, 5);
    assert.is(hits[0]?.metadata?.path, 'src/http/headers.ts', q);
  }
});

test('query syntax characters never reach FTS5 unquoted: every text gives results or none, never an error', async () => {
  await backend.index('syntax', [doc('a.ts', 'function near(a, b) { return a * b; } // AND OR NOT')]);
  for (const q of ['"', '(', ')', '*', ':', 'NEAR', 'NEAR(a b)', 'a AND', 'OR', 'NOT a', '-a', '^a', 'col:near', '"unterminated', 'a"b"c', '{a b}', '\u0000', '🙂', ' ']) {
    const hits = await backend.search('syntax', q, 5);
    assert.ok(Array.isArray(hits), q);
  }
  assert.is((await backend.search('syntax', 'near(', 5))[0]?.metadata?.path, 'a.ts');
  assert.is(ftsQuery(['a"b', 'near']), '"ab" OR "near"');
});

test('one file does not crowd out the others: at most 3 chunks per file and later ones decay', async () => {
  const many = Array.from({ length: 8 }, (_, i) => doc('big/crowded.ts', `queue worker ${i}\nqueue queue worker`, { start_line: i * 10 + 1, end_line: i * 10 + 2 }));
  await backend.index('crowd', [...many, doc('small/alone.ts', 'queue worker alone'), doc('small/other.ts', 'a queue for the worker pool')]);
  const hits = await backend.search('crowd', 'queue worker', 10);
  const perFile = new Map<string, number>();
  for (const h of hits) perFile.set(String(h.metadata?.path), (perFile.get(String(h.metadata?.path)) ?? 0) + 1);
  assert.is(perFile.get('big/crowded.ts'), 3);
  assert.ok(perFile.has('small/alone.ts') && perFile.has('small/other.ts'));
  const crowded = hits.filter((h) => h.metadata?.path === 'big/crowded.ts');
  assert.ok(crowded[1]!.signals!.file_decay === 0.5 && crowded[2]!.signals!.file_decay === 0.25);
});

test('code ranks over tests, prose and vendored copies of the same words', async () => {
  const text = 'export function expireArtifacts() { /* delete expired artifacts */ }';
  await backend.index('classes', [
    doc('test/cleanup.test.ts', text),
    doc('docs/cleanup.md', text, { language: 'markdown' }),
    doc('vendor/lib/cleanup.ts', text),
    doc('src/cleanup.ts', text),
  ]);
  const hits = await backend.search('classes', 'where are expired artifacts deleted', 4);
  assert.is(hits[0]?.metadata?.path, 'src/cleanup.ts');
  assert.is(hits[3]?.metadata?.path, 'vendor/lib/cleanup.ts');
});

test('filters by path prefix and language', async () => {
  await backend.index('filters', [doc('a/x.ts', 'shared term'), doc('b/y.py', 'shared term', { language: 'python' })]);
  const a = await backend.search('filters', 'shared', 5, { filters: { pathPrefixes: ['a/'] } });
  assert.equal(a.map((h) => h.metadata?.path), ['a/x.ts']);
  const py = await backend.search('filters', 'shared', 5, { filters: { languages: ['python'] } });
  assert.equal(py.map((h) => h.metadata?.path), ['b/y.py']);
});

test('a write session is invisible until commit, abort leaves the index as it was, and only one writes at a time', async () => {
  await backend.index('sessions', [doc('old.ts', 'original words')]);
  const session = await backend.openSession!('sessions');
  await session.replaceSource('new.ts', 'h1', [doc('new.ts', 'fresh words')]);
  await session.deleteSources(['old.ts']);
  assert.is((await backend.search('sessions', 'fresh', 5)).length, 0, 'not visible before commit');
  assert.is((await backend.search('sessions', 'original', 5)).length, 1, 'old still visible');
  try {
    await backend.openSession!('sessions');
    assert.unreachable('a second session must be refused');
  } catch (err) {
    assert.match((err as Error).message, /another session/);
  }
  const stats = await session.commit();
  assert.equal(stats, { documents: 1, sources: 1, vectors: 0 });
  assert.is((await backend.search('sessions', 'fresh', 5))[0]?.metadata?.path, 'new.ts');
  assert.is((await backend.search('sessions', 'original', 5)).length, 0);

  const aborted = await backend.openSession!('sessions');
  assert.equal(await aborted.sources(), [{ path: 'new.ts', hash: 'h1' }]);
  await aborted.deleteSources(['new.ts']);
  await aborted.abort();
  assert.is((await backend.search('sessions', 'fresh', 5)).length, 1, 'abort keeps the committed index');
});

test('deleteByPath removes every chunk of a file, and stats count what is left', async () => {
  await backend.index('bypath', [doc('gone.ts', 'alpha', { start_line: 1 }), doc('gone.ts', 'alpha beta', { start_line: 5 }), doc('kept.ts', 'alpha')]);
  assert.equal(await backend.deleteByPath!('bypath', ['gone.ts']), { deleted: 2 });
  assert.equal((await backend.search('bypath', 'alpha', 5)).map((h) => h.metadata?.path), ['kept.ts']);
  assert.is((await backend.stats!('bypath')).documents, 1);
  assert.equal(await backend.stats!('never-indexed'), { documents: 0, sources: 0, vectors: 0 });
});

test('with vectors, a chunk found only by meaning is fused in by reciprocal rank fusion over the same ids', async () => {
  const texts: Array<[string, string]> = [
    ['src/mask.ts', 'function hideDigits(n) { return n.replace(/\\d(?=\\d{4})/g, "*"); } telephone privacy'],
    ['src/queue.ts', 'class ReloadQueue { coalesce() {} }'],
  ];
  await backend.index('dense', texts.map(([p, t]) => ({ ...doc(p, t), vector: fakeEmbedding(t, 512) })));
  const query = 'telephone privacy';
  const fusion = { kDiv: 60, sparseWeight: 0.3, denseWeight: 0.7, topKSparse: 75, topKDense: 75 };
  const withVector = await backend.search('dense', 'which code masks phone numbers telephone', 5, { queryVector: fakeEmbedding(query, 512), fusion });
  const top = withVector[0]!;
  assert.is(top.metadata?.path, 'src/mask.ts');
  assert.ok(top.signals!.dense_rank === 1 && top.signals!.sparse_rank === 1, `one id space: both rankings name the same row ${JSON.stringify(top.signals)}`);
  const onlyDense = await backend.search('dense', 'nothing matches these words', 5, { queryVector: fakeEmbedding('ReloadQueue coalesce', 512), fusion });
  assert.is(onlyDense[0]?.metadata?.path, 'src/queue.ts');
  assert.is(onlyDense[0]!.signals!.sparse_rank, undefined);
  assert.is((await backend.stats!('dense')).vectors, 2);
});

test('terms made ahead by the host (contract 1.3) are stored as given; without them the backend makes the same terms', async () => {
  const text = 'export function parseHttpHeader(line: string) {\n  return line.split(":");\n}';
  const path = 'src/http/header-parser.ts';
  const made = { body: indexTerms(text), path: indexPathTerms(path), symbol: indexTerms('parseHttpHeader') };
  const session = await backend.openSession!('made');
  await session.replaceSource(path, 'h1', [{ ...doc(path, text, { symbol: 'parseHttpHeader' }), terms: made }]);
  await session.replaceSource('src/plain.ts', 'h2', [doc('src/plain.ts', text, { symbol: 'parseHttpHeader' })]);
  // Proof that the given terms are what is stored: words that are not in the text.
  await session.replaceSource('src/given.ts', 'h3', [{ ...doc('src/given.ts', 'export const a = 1;'), terms: { body: 'zebraword', path: 'given' } }]);
  await session.commit();
  // The FTS table is contentless: what it holds shows in what each column matches.
  const db = new Database(collectionFile(`${dataDir}/direct`, 'made'), { readonly: true });
  try {
    const matching = db.prepare('SELECT d.path FROM docs_fts JOIN docs d ON d.rowid = docs_fts.rowid WHERE docs_fts MATCH ? ORDER BY d.path').pluck();
    const where = (column: string, term: string) => matching.all(`${column}:"${term}"`) as string[];
    for (const term of made.body.split(' ')) assert.equal(where('body', term), [path, 'src/plain.ts'], term);
    for (const term of made.symbol.split(' ')) assert.equal(where('symbol', term), [path, 'src/plain.ts'], term);
    assert.equal(where('path', 'parser'), [path]);
    assert.equal(where('path', 'plain'), ['src/plain.ts']);
    assert.equal(where('body', 'zebraword'), ['src/given.ts']);
    assert.equal(where('path', 'given'), ['src/given.ts']);
    assert.equal(where('path', 'src'), [path, 'src/plain.ts'], 'the given path terms replace those the backend would make');
    assert.not.ok(where('body', 'export').includes('src/given.ts'), 'the given body terms replace the text\'s');
  } finally {
    db.close();
  }
  assert.is((await backend.search('made', 'zebraword', 5))[0]?.metadata?.path, 'src/given.ts');
});

test.run();
