import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_CLASS_FACTORS, RANKING_RULES, WEIGHTS, collapseNearDuplicates, definitionName, nameWords, rescoreSparse, type Candidate } from '../../../../core/sdk/retrieval/index.js';
import { collapseSameDocument } from '../../../../core/sdk/retrieval/sparse-rescoring.js';

let nextRow = 1;
const candidate = (path: string, text: string, extra: Partial<Candidate> = {}): Candidate => ({
  rowid: nextRow++,
  id: `${path}#${nextRow}`,
  path,
  symbol: null,
  language: 'typescript',
  text,
  bm25: 1,
  ...extra,
});
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

test('file name words leave out the extension, test/spec/d suffixes and names that say nothing', () => {
  assert.equal(nameWords('reload-queue.ts'), ['reload', 'queue']);
  assert.equal(nameWords('reloadQueue.test.ts'), ['reload', 'queue']);
  assert.equal(nameWords('index.ts'), []);
  assert.equal(nameWords('__init__.py'), []);
});

test('a chunk that names every query term everywhere scores the sum of the weights', () => {
  const [hit] = rescoreSparse([candidate('src/reload-queue.ts', 'class ReloadQueue {}', { symbol: 'ReloadQueue', bm25: 4 })], { terms: ['reload', 'queue'] });
  assert.equal(
    { bm25: hit!.signals.bm25, coverage: hit!.signals.coverage, path: hit!.signals.path, name: hit!.signals.name, symbol: hit!.signals.symbol, named: hit!.signals.named, file: hit!.signals.file, class: hit!.signals.class },
    { bm25: 1, coverage: 1, path: 1, name: 1, symbol: 1, named: 1, file: 1, class: 1 },
  );
  // Whole-file evidence, file-name terms and the named definition are measured (their signals are
  // there for traces) but off: each hurt more golden sets than it helped.
  assert.equal([RANKING_RULES.fileEvidence, RANKING_RULES.nameTerms, RANKING_RULES.definitionNamed], [false, false, false]);
  const sum = WEIGHTS.bm25 + WEIGHTS.coverage + WEIGHTS.path + WEIGHTS.symbol + WEIGHTS.named;
  close(hit!.score, sum, 'score');
});

test('bm25 is divided by the best candidate, and shares count stemmed terms', () => {
  const ranked = rescoreSparse(
    [candidate('a/x.ts', 'nothing here', { bm25: 1 }), candidate('a/y.ts', 'the queues coalesced', { bm25: 4 })],
    { terms: ['queue', 'coalescing'] },
  );
  assert.equal(ranked.map((r) => r.path), ['a/y.ts', 'a/x.ts']);
  assert.is(ranked[0]!.signals.bm25, 1);
  assert.is(ranked[1]!.signals.bm25, 0.25);
  assert.is(ranked[0]!.signals.coverage, 1);
  assert.is(ranked[1]!.signals.coverage, 0);
});

test('other kinds of file are multiplied down unless the query asks for them', () => {
  const text = 'export function expireArtifacts() {}';
  const make = () => [candidate('test/cleanup.test.ts', text), candidate('src/cleanup.ts', text)];
  const plain = rescoreSparse(make(), { terms: ['expire', 'artifacts'] });
  assert.equal(plain.map((r) => r.path), ['src/cleanup.ts', 'test/cleanup.test.ts']);
  assert.is(plain[1]!.signals.class, 0.5);
  close(plain[1]!.score, plain[0]!.score * 0.5, 'a test scores half the same code');
  const askingForTests = rescoreSparse(make(), { terms: ['expire', 'artifacts', 'tests'] });
  const testHit = askingForTests.find((r) => r.path === 'test/cleanup.test.ts')!;
  assert.is(testHit.signals.class, 1);
});

test('a keyword boosts a chunk only when the query names it', () => {
  const make = () => [candidate('a/plain.ts', 'queue worker'), candidate('a/kw.ts', 'queue worker reconciler')];
  const boostTerms = { terms: ['reconciler'], factor: 2 };
  const notNamed = rescoreSparse(make(), { terms: ['queue'], boostTerms });
  assert.ok(notNamed.every((r) => r.signals.keyword_boost === undefined));
  close(notNamed[0]!.score, notNamed[1]!.score, 'no boost, same score');
  const named = rescoreSparse(make(), { terms: ['queue', 'reconciler'], boostTerms });
  assert.is(named[0]!.path, 'a/kw.ts');
  assert.is(named[0]!.signals.keyword_boost, 2);
  assert.is(named[1]!.signals.keyword_boost, undefined);
});

test('a file is judged by its chunks together when whole-file evidence is on: two halves make a whole file', () => {
  const make = () => [candidate('a/split.ts', 'alpha only'), candidate('a/split.ts', 'beta only'), candidate('a/half.ts', 'alpha again')];
  // Off as shipped: the signal is there for traces, the score ignores it.
  const off = rescoreSparse(make(), { terms: ['alpha', 'beta'] });
  close(off.find((r) => r.path === 'a/half.ts')!.score, off.find((r) => r.path === 'a/split.ts')!.score, 'same score without the rule');
  RANKING_RULES.fileEvidence = true;
  try {
    const ranked = rescoreSparse(make(), { terms: ['alpha', 'beta'] });
    const split = ranked.filter((r) => r.path === 'a/split.ts');
    assert.ok(split.every((r) => r.signals.file === 1 && r.signals.coverage === 0.5));
    assert.is(ranked.find((r) => r.path === 'a/half.ts')!.signals.file, 0.5);
    assert.ok(ranked.find((r) => r.path === 'a/half.ts')!.score < split[0]!.score);
  } finally {
    RANKING_RULES.fileEvidence = false;
  }
});

test('equal scores keep the order of row numbers', () => {
  const a = candidate('a/one.ts', 'same words');
  const b = candidate('a/two.ts', 'same words');
  const ranked = rescoreSparse([{ ...b, rowid: 2 }, { ...a, rowid: 1 }], { terms: ['same'] });
  assert.equal(ranked.map((r) => r.rowid), [1, 2]);
});

test('with its rule on, a definition the query names whole gains the definition weight', () => {
  assert.is(definitionName('Session.send'), 'send');
  assert.is(definitionName('set_level'), 'setlevel');
  assert.is(definitionName('isLevelEnabled'), 'islevelenabled');
  const make = () => [candidate('lib/a.js', 'function flush (cb) { stream.flushSync() }', { symbol: 'flush' }), candidate('lib/b.js', 'function write (cb) { stream.flushSync() }', { symbol: 'write' })];
  const [off] = rescoreSparse(make(), { terms: ['flush', 'destination'] });
  RANKING_RULES.definitionNamed = true;
  try {
    const [first, second] = rescoreSparse(make(), { terms: ['flush', 'destination'] });
    assert.is(first!.path, 'lib/a.js');
    assert.is(first!.signals.defined, 1);
    assert.is(second!.signals.defined, 0);
    close(first!.score - off!.score, WEIGHTS.defined, 'the rule adds its weight');
  } finally {
    RANKING_RULES.definitionNamed = false;
  }
});

test('a how-to question lifts prose to code, a question about the code does not', () => {
  const make = () => [
    candidate('docs/Server.md', 'Set a custom error handler for every route of the instance', { language: 'markdown' }),
    candidate('lib/route.js', 'function runErrorHandler (custom, error, handler) {}', { language: 'javascript' }),
  ];
  const terms = ['custom', 'error', 'handler'];
  const usage = rescoreSparse(make(), { terms, query: 'how do I set a custom error handler?' });
  assert.is(usage.find((r) => r.path === 'docs/Server.md')!.signals.class, 1);
  const code = rescoreSparse(make(), { terms, query: 'where is the custom error handler called?' });
  assert.is(code.find((r) => r.path === 'docs/Server.md')!.signals.class, FILE_CLASS_FACTORS.prose);
  assert.is(FILE_CLASS_FACTORS.prose, 0.7, 'measured on the golden sets (docs/search/code-search.md)');
  assert.is(code[0]!.path, 'lib/route.js');
});

test('near-duplicate chunks of two files count once, for the more focused file', () => {
  const text = 'MD024 multiple headings with the same content siblings_only allow different parents nesting rule triggered';
  const rules = [1, 2, 3, 4].map((i) => ({ ...candidate('doc/Rules.md', `${text} ${i === 1 ? '' : `other part ${i}`}`), score: 1 - i / 10, signals: {} }));
  const single = { ...candidate('doc/md024.md', text), score: 0.5, signals: {} };
  const out = collapseNearDuplicates([...rules, single]);
  assert.is(out[0]!.path, 'doc/md024.md', 'the focused file takes the better score');
  close(out[0]!.score, 0.9, 'score');
  assert.is(out.filter((r) => r.path === 'doc/Rules.md').length, 3);
  // Different texts stay.
  const apart = collapseNearDuplicates([{ ...candidate('a.md', 'alpha beta gamma delta epsilon zeta eta theta'), score: 1, signals: {} }, { ...candidate('b.md', 'iota kappa lambda mu nu xi omicron pi'), score: 0.9, signals: {} }]);
  assert.is(apart.length, 2);
});

test('one document as Markdown, HTML and man page counts once, for its best-ranked copy (rule off as shipped)', () => {
  const scored = (path: string, score: number) => ({ ...candidate(path, 'npm ci installs from the lockfile', { language: path.endsWith('.md') ? 'markdown' : 'text' }), score, signals: {} });
  const ranked = [scored('docs/output/commands/npm-ci.html', 0.9), scored('docs/content/commands/npm-ci.md', 0.8), scored('lib/commands/ci.js', 0.7), scored('man/man1/npm-ci.1', 0.6), scored('docs/content/commands/npm-ci.md', 0.5), scored('docs/content/using-npm/removal.md', 0.4)];
  ranked[2] = { ...ranked[2]!, language: 'javascript' };
  assert.equal(collapseSameDocument(ranked).map((c) => c.path), ['docs/output/commands/npm-ci.html', 'lib/commands/ci.js', 'docs/content/using-npm/removal.md']);
  // Code never collapses, nor do prose files sharing a name and an extension (two folders' README.md).
  const readmes = [scored('README.md', 1), scored('android/README.md', 0.9), scored('src/ci.js', 0.8), scored('test/ci.js', 0.7)].map((c) => (c.path!.endsWith('.js') ? { ...c, language: 'javascript' } : c));
  assert.is(collapseSameDocument(readmes).length, 4);
  assert.is(RANKING_RULES.sameDocument, false);
  RANKING_RULES.sameDocument = true;
  try {
    const out = rescoreSparse([candidate('a/npm-ci.md', 'npm ci', { language: 'markdown' }), candidate('b/npm-ci.html', 'npm ci', { language: 'text' })], { terms: ['npm', 'ci'] });
    assert.is(out.length, 1);
  } finally {
    RANKING_RULES.sameDocument = false;
  }
});

test('a file-name word that begins a query word counts as named when abbreviations are on (off as shipped)', () => {
  const make = () => [candidate('libusb/sync.c', 'int libusb_control_transfer(void) {}', { language: 'c' })];
  const terms = ['synchronous', 'control', 'transfer'];
  assert.is(rescoreSparse(make(), { terms })[0]!.signals.named, 0);
  assert.is(RANKING_RULES.nameAbbreviations, false);
  RANKING_RULES.nameAbbreviations = true;
  try {
    assert.is(rescoreSparse(make(), { terms })[0]!.signals.named, 1);
    // Two letters are too few to be an abbreviation: `io` does not name "iostream".
    assert.is(rescoreSparse([candidate('libusb/io.c', 'x', { language: 'c' })], { terms: ['iostream'] })[0]!.signals.named, 0);
  } finally {
    RANKING_RULES.nameAbbreviations = false;
  }
});

test.run();
