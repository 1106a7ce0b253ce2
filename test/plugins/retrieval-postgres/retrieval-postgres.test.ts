import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { conformance } from 'switchboard/sdk/testing';
import { createSqliteRetrieval } from '../../../plugins/retrieval-sqlite/index.js';
import retrievalPostgres, { createPostgresRetrieval, databaseUrlOf } from '../../../plugins/retrieval-postgres/index.js';
import { ensureSchema } from '../../../plugins/retrieval-postgres/collection-schema.js';
import { indexTerms, pathTerms, stem } from '../../../core/sdk/retrieval/index.js';
import { freshPostgresDatabase } from '../../support/pg.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { fakeEmbedding } from '../../fakes/llm-gateway-fake.js';
import type { RetrievalDocument } from '../../../core/sdk/index.js';

const database = await freshPostgresDatabase();
const dataDir = tempDir();
const pool = new pg.Pool({ connectionString: database.url, max: 4 });
await ensureSchema(pool);
const backend = createPostgresRetrieval(pool);
test.after(async () => {
  await backend.close();
  await database.drop();
  removeDir(dataDir);
});

// On the gateway's DATABASE_URL: the plugin's own URL setting is unset.
for (const c of conformance.retrieval({ plugin: retrievalPostgres, dataDir, env: { DATABASE_URL: database.url }, enrichment: true, metadata: true })) test(c.name, c.run);

const doc = (path: string, text: string, extra: Record<string, unknown> = {}): RetrievalDocument => ({
  id: `${path}#${String(extra.start_line ?? 1)}`,
  text,
  metadata: { path, start_line: 1, end_line: text.split('\n').length, language: 'typescript', ...extra },
});

test('its own URL wins over the gateway DATABASE_URL; a SQLite gateway without one needs configuration', () => {
  assert.is(databaseUrlOf({ url: 'postgres://a/own', databaseUrl: 'postgres://b/gateway' }), 'postgres://a/own');
  assert.is(databaseUrlOf({ databaseUrl: 'postgresql://b/gateway' }), 'postgresql://b/gateway');
  assert.throws(() => databaseUrlOf({}), /RETRIEVAL_POSTGRES_URL/);
  assert.throws(() => databaseUrlOf({ databaseUrl: 'sqlite:///x' }), /not a postgres:\/\/ URL/);
});

test('pg loads only when the plugin starts with a database: not at import, not when it needs configuration', async () => {
  // A fresh process: this one loaded pg for the cases above.
  const script = `
    import { createRequire } from 'node:module';
    const { startPlugin } = await import(${JSON.stringify(import.meta.resolve('switchboard/sdk/testing'))});
    const plugin = (await import(${JSON.stringify(import.meta.resolve('../../../plugins/retrieval-postgres/index.js'))})).default;
    const cache = createRequire(import.meta.url).cache;
    const loaded = () => Object.keys(cache).some((f) => f.includes('/node_modules/pg/'));
    const atImport = loaded();
    const unconfigured = await startPlugin(plugin, { env: { DATABASE_URL: 'sqlite:///x' } }).then(() => 'started', (err) => err.name);
    const afterNeedsConfig = loaded();
    const started = await startPlugin(plugin, { env: { DATABASE_URL: ${JSON.stringify(database.url)} } });
    const afterStart = loaded();
    await started.stop();
    console.log(JSON.stringify({ atImport, unconfigured, afterNeedsConfig, afterStart }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script]);
  assert.equal(JSON.parse(stdout.trim().split('\n').pop()!), { atImport: false, unconfigured: 'ConfigError', afterNeedsConfig: false, afterStart: true });
});

test('the stored lexemes are exactly the terms the SDK makes, symbol and path terms weighted', async () => {
  const text = 'export function parseHttpHeader(line: string) { return line.split(":"); } // 2nd try, v8 x86_64 0x1f';
  await backend.index('lexemes', [doc('src/http/headers.ts', text, { symbol: 'parseHttpHeader' })]);
  const { rows } = await pool.query<{ lexeme: string; weights: string[] }>("SELECT u.lexeme, u.weights FROM retrieval_docs d, unnest(d.terms) u WHERE d.collection = 'lexemes'");
  const expected = new Set([...indexTerms(text).split(' '), ...indexTerms('parseHttpHeader').split(' '), ...pathTerms('src/http/headers.ts').map(stem)]);
  assert.equal(new Set(rows.map((r) => r.lexeme)), expected);
  const header = rows.find((r) => r.lexeme === stem('header'))!;
  assert.ok(header.weights.includes('A') && header.weights.includes('B') && header.weights.includes('D'), JSON.stringify(header));
  // The postings: one row per term, its occurrences weighted symbol 6, path 3, body 1.
  const { rows: postings } = await pool.query<{ term: string; freq: number; len: number }>("SELECT term, freq, len FROM retrieval_postings WHERE collection = 'lexemes'");
  assert.equal(new Set(postings.map((p) => p.term)), expected);
  const weight = { A: 6, B: 3, D: 1 } as Record<string, number>;
  for (const r of rows) assert.is(postings.find((p) => p.term === r.lexeme)!.freq, r.weights.reduce((n, w) => n + weight[w]!, 0), r.lexeme);
  assert.is(postings.find((p) => p.term === stem('header'))!.freq, 6 + 3 + 1);
});

test('enrichment terms are their own weight (C, 0.5 an occurrence), count in the length, and rank as retrieval-sqlite ranks them', async () => {
  const docs: RetrievalDocument[] = [
    { ...doc('src/ship/order.ts', 'export function byDeadline(a: Ship, b: Ship) { return a.due - b.due; }', { symbol: 'byDeadline' }), enrichment: 'Orders shipments by their delivery deadline.\ncomparator, sorting, deadline, delivery' },
    doc('src/ship/deadline.ts', 'export const deliveryDeadlineDays = 3; // delivery deadline of a shipment'),
    { ...doc('src/ship/route.ts', 'export function route(s: Ship) { return s.depot; }'), enrichment: 'Picks the depot a shipment leaves from.\nrouting, depot' },
  ];
  await backend.index('enriched', docs);
  const { rows } = await pool.query<{ lexeme: string; weights: string[]; len: number }>("SELECT u.lexeme, u.weights, d.len FROM retrieval_docs d, unnest(d.terms) u WHERE d.collection = 'enriched' AND d.path = 'src/ship/order.ts'");
  const comparator = rows.find((r) => r.lexeme === stem('comparator'))!;
  assert.equal(comparator.weights, ['C'], 'a term only in the enrichment is weighted C');
  const { rows: postings } = await pool.query<{ freq: number }>("SELECT p.freq FROM retrieval_postings p JOIN retrieval_docs d ON d.rowid = p.rowid WHERE p.collection = 'enriched' AND d.path = 'src/ship/order.ts' AND p.term = $1", [stem('comparator')]);
  assert.is(postings[0]!.freq, 0.5);
  const enrichmentTerms = indexTerms(docs[0]!.enrichment!).split(' ').length;
  const ownTerms = [indexTerms(docs[0]!.text), indexTerms('byDeadline'), pathTerms('src/ship/order.ts').map(stem).join(' ')].join(' ').split(' ').length;
  assert.is(rows[0]!.len, ownTerms + enrichmentTerms, 'the length counts the enrichment terms');
  const sqliteDir = tempDir();
  const sqlite = createSqliteRetrieval(sqliteDir);
  try {
    await sqlite.index('enriched', docs);
    for (const q of ['delivery deadline', 'comparator sorting', 'shipment depot', 'byDeadline']) {
      const [pgHits, liteHits] = [await backend.search('enriched', q, 3), await sqlite.search('enriched', q, 3)];
      assert.equal(pgHits.map((h) => [h.id, h.score, h.enrichment ?? null]), liteHits.map((h) => [h.id, h.score, h.enrichment ?? null]), q);
    }
    assert.is((await backend.search('enriched', 'comparator', 3))[0]?.enrichment, docs[0]!.enrichment);
  } finally {
    sqlite.close();
    removeDir(sqliteDir);
  }
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

test('query text reaches PostgreSQL only as parameters: every text gives results or none, never an error', async () => {
  await backend.index('syntax', [doc('a.ts', 'function near(a, b) { return a * b; } // AND OR NOT & | ! <->')]);
  for (const q of ['"', '(', ')', '*', ':', '&', '|', '!', '<->', "'", "a' | 'b", 'NEAR(a b)', 'a AND', 'OR', '!a & b', '-a', '^a', 'col:near', '"unterminated', '{a b}', '\u0000', '🙂', ' ', '%', '_']) {
    const hits = await backend.search('syntax', q, 5);
    assert.ok(Array.isArray(hits), q);
  }
  assert.is((await backend.search('syntax', 'near(', 5))[0]?.metadata?.path, 'a.ts');
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

test('filters by path prefix (LIKE characters are plain) and language; collections do not mix', async () => {
  await backend.index('filters', [doc('a/x.ts', 'shared term'), doc('b/y.py', 'shared term', { language: 'python' }), doc('a_/z.ts', 'shared term')]);
  await backend.index('filters-other', [doc('a/other.ts', 'shared term')]);
  const a = await backend.search('filters', 'shared', 5, { filters: { pathPrefixes: ['a/'] } });
  assert.equal(a.map((h) => h.metadata?.path), ['a/x.ts']);
  const underscore = await backend.search('filters', 'shared', 5, { filters: { pathPrefixes: ['a_'] } });
  assert.equal(underscore.map((h) => h.metadata?.path), ['a_/z.ts']);
  const py = await backend.search('filters', 'shared', 5, { filters: { languages: ['python'] } });
  assert.equal(py.map((h) => h.metadata?.path), ['b/y.py']);
  assert.is((await backend.search('filters', 'shared', 10)).length, 3);
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

test('term counts follow every write: replaced, deleted and re-added documents leave no stale counts', async () => {
  const s = await backend.openSession!('counts');
  await s.replaceSource('a.ts', 'h1', [doc('a.ts', 'alpha beta', { start_line: 1 }), doc('a.ts', 'alpha gamma', { start_line: 5 })]);
  await s.replaceSource('b.ts', 'h1', [doc('b.ts', 'alpha')]);
  await s.commit();
  const s2 = await backend.openSession!('counts');
  await s2.replaceSource('a.ts', 'h2', [doc('a.ts', 'delta')]);
  await s2.deleteSources(['b.ts']);
  await s2.commit();
  const { rows } = await pool.query<{ term: string; df: number }>("SELECT term, df FROM retrieval_vocab WHERE collection = 'counts' ORDER BY term");
  const { rows: truth } = await pool.query<{ term: string; df: number }>(
    "SELECT u.lexeme AS term, count(*)::int AS df FROM retrieval_docs d, unnest(d.terms) u WHERE d.collection = 'counts' GROUP BY u.lexeme ORDER BY u.lexeme",
  );
  assert.equal(rows, truth);
  assert.ok(!rows.some((r) => r.term === 'alpha'));
  const { rows: postings } = await pool.query<{ term: string; df: number }>(
    "SELECT term, count(*)::int AS df FROM retrieval_postings WHERE collection = 'counts' GROUP BY term ORDER BY term",
  );
  assert.equal(postings, truth, 'postings of replaced and deleted documents are gone');
  const { rows: col } = await pool.query("SELECT documents::int, total_len::int FROM retrieval_collections WHERE name = 'counts'");
  assert.equal(col[0], { documents: 1, total_len: 1 + pathTerms('a.ts').length });
});

test('in a session a file replaced twice keeps its last documents, and an id moved to another file leaves the first', async () => {
  const s = await backend.openSession!('twice');
  await s.replaceSource('x.ts', 'h1', [doc('x.ts', 'first version')]);
  await s.replaceSource('y.ts', 'h1', [{ ...doc('y.ts', 'shared identity'), id: 'moving' }]);
  await s.replaceSource('x.ts', 'h2', [doc('x.ts', 'second version')]);
  await s.replaceSource('z.ts', 'h1', [{ ...doc('z.ts', 'shared identity'), id: 'moving' }]);
  assert.equal(await s.commit(), { documents: 2, sources: 3, vectors: 0 });
  assert.equal(await backend.search('twice', 'first', 5), []);
  assert.equal((await backend.search('twice', 'second', 5)).map((h) => h.metadata?.path), ['x.ts']);
  assert.equal((await backend.search('twice', 'identity', 5)).map((h) => h.metadata?.path), ['z.ts']);
  const s2 = await backend.openSession!('twice');
  assert.equal(await s2.sources(), [{ path: 'x.ts', hash: 'h2' }, { path: 'y.ts', hash: 'h1' }, { path: 'z.ts', hash: 'h1' }]);
  await s2.abort();
});

test('deleteByPath removes every chunk of a file, and stats count what is left', async () => {
  await backend.index('bypath', [doc('gone.ts', 'alpha', { start_line: 1 }), doc('gone.ts', 'alpha beta', { start_line: 5 }), doc('kept.ts', 'alpha')]);
  assert.equal(await backend.deleteByPath!('bypath', ['gone.ts']), { deleted: 2 });
  assert.equal((await backend.search('bypath', 'alpha', 5)).map((h) => h.metadata?.path), ['kept.ts']);
  assert.is((await backend.stats!('bypath')).documents, 1);
  assert.equal(await backend.stats!('never-indexed'), { documents: 0, sources: 0, vectors: 0 });
  assert.equal(await backend.search('never-indexed', 'alpha', 5), []);
});

test('collection names are plain names', async () => {
  for (const bad of ['../x', 'a b', '', "x'; DROP TABLE retrieval_docs; --"]) {
    await backend.search(bad, 'alpha', 5).then(() => assert.unreachable(bad), (err: Error) => assert.match(err.message, /not a plain name/));
  }
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

test('an older schema is dropped and made again (the index is derived data); a newer one is left alone and refused', async () => {
  const other = await freshPostgresDatabase();
  const p = new pg.Pool({ connectionString: other.url, max: 2 });
  try {
    await ensureSchema(p);
    const r = createPostgresRetrieval(p);
    await r.index('kept', [doc('a.ts', 'alpha')]);
    await ensureSchema(p);
    assert.is((await r.stats!('kept')).documents, 1, 'the same version keeps the index');
    await p.query('UPDATE retrieval_schema SET version = version - 1');
    await ensureSchema(p);
    assert.is((await r.stats!('kept')).documents, 0, 'an older version is rebuilt empty');
    await p.query('UPDATE retrieval_schema SET version = version + 5');
    await ensureSchema(p).then(() => assert.unreachable('a newer schema must be refused'), (err: Error) => assert.match(err.message, /newer than this plugin/));
    assert.ok((await p.query("SELECT to_regclass('retrieval_docs') AS t")).rows[0].t, 'and its tables stay');
  } finally {
    await p.end();
    await other.drop();
  }
});

test.run();
