import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FILE_CLASS_FACTORS, classesAskedFor, fileClass, isUsageQuestion, stem } from '../../../../core/sdk/retrieval/index.js';

test('files are classed by path and language, vendored and tests first', () => {
  const cases: Array<[string, string | null, string]> = [
    ['src/queue.ts', 'typescript', 'code'],
    ['node_modules/pino/lib/tools.js', 'javascript', 'vendored'],
    ['dist/test/queue.test.js', 'javascript', 'vendored'],
    ['lib/app.min.js', 'javascript', 'vendored'],
    ['test/queue.test.ts', 'typescript', 'test'],
    ['src/queue.spec.ts', 'typescript', 'test'],
    ['pkg/queue_test.go', 'go', 'test'],
    ['tests/test_queue.py', 'python', 'test'],
    ['bench/queue.ts', 'typescript', 'support'],
    ['src/queue.bench.ts', 'typescript', 'support'],
    ['docs/queue.md', null, 'prose'],
    ['NOTES', 'markdown', 'prose'],
    ['config/queue.yaml', null, 'data'],
    ['package-lock.lock', null, 'data'],
    ['types/queue.d.ts', 'typescript', 'declaration'],
    ['stubs/queue.pyi', 'python', 'declaration'],
  ];
  for (const [p, language, cls] of cases) assert.is(fileClass(p, language), cls, p);
  assert.is(fileClass(null, null), 'code');
});

test('code weighs most, vendored copies least', () => {
  assert.is(FILE_CLASS_FACTORS.code, 1);
  const others = Object.entries(FILE_CLASS_FACTORS).filter(([c]) => c !== 'code');
  for (const [cls, factor] of others) assert.ok(factor < 1 && factor >= FILE_CLASS_FACTORS.vendored, cls);
});

test('a query asks for tests, benchmarks or declarations by name, never for prose', () => {
  const asked = (q: string) => [...classesAskedFor(new Set(q.split(' ').map(stem)))].sort();
  assert.equal(asked('which tests cover the queue'), ['test']);
  assert.equal(asked('benchmark of the queue examples'), ['support']);
  assert.equal(asked('typescript typings'), ['declaration']);
  assert.equal(asked('markdown docs readme'), []);
  assert.equal(asked('sync the version during the build'), ['vendored']);
});

test('prose is lifted by the form of a question, not by its words', () => {
  const asked = (q: string) => [...classesAskedFor(new Set(q.split(' ').map(stem)), q)].sort();
  for (const q of ['how do I validate the body?', 'How to run on AWS Lambda', 'what is encapsulation?', 'why are headings flagged?', 'can I disable the rule?']) {
    assert.ok(isUsageQuestion(q), q);
    assert.equal(asked(q), ['prose'], q);
  }
  for (const q of ['how does the session follow redirects?', 'where is the retry configured?', 'isLevelEnabled implementation']) {
    assert.not.ok(isUsageQuestion(q), q);
    assert.equal(asked(q), [], q);
  }
});

test.run();
