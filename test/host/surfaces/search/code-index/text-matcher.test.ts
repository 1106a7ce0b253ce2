import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { textMatcher, withoutCaptures } from '../../../../../host/surfaces/search/code-index/text-matcher.js';
import { matchesWithinLine, requiredLiterals } from '../../../../../host/surfaces/search/code-index/regex-literals.js';
import { re2Reference as reference } from './re2-reference.js';

// Deterministic text: code-like lines, a long minified line with many matches, CRLF, non-ASCII and astral characters.
function corpus(): string {
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  const words = ['function', 'readSync', 'Sync', 'parseInt', 'fooSync', 'ſync', 'ÉCOLE', 'école', 'x', 'a_b', '😀Sync', 'new', 'Error', "('Invalid'", 'throw', 'TypeError(`'];
  const lines: string[] = [];
  for (let i = 0; i < 120; i++) {
    const n = rand(12);
    lines.push(Array.from({ length: n }, () => words[rand(words.length)]).join(rand(3) ? ' ' : '('));
  }
  lines.push(Array.from({ length: 120 }, (_, i) => `function f${i}Sync(a){throw new Error('Invalid ${i}')}`).join(';'));
  lines.push('', 'trailing Sync\r', 'Sync');
  return lines.join('\n');
}

const PATTERNS = [
  'function \\w+Sync\\(', 'Sync', 'sync', 'new Error\\([\'"]Invalid', 'throw new TypeError\\(`', '^Sync', 'Sync$', '\\bSync\\b', 'Sync\\b',
  'f\\d+Sync', '(f)(\\d+)Sync', '(?P<n>f\\d+)Sync', 'Sync.*?\\(', 'Sync.*', '[A-Z]+Sync', 'école', 'É', 'Sync\\s+\\w', 'Sync\\W',
  'Sync[^a]', 'x\\s*Sync', 'Sync\\n', '\\ASync', 'Sync\\z', '(?i)SYNC', 'a|Sync', 'Sync|read', 'S(y)?nc', 'Syn+c', '😀S',
  // Groups on RE2's path (\w+ before Sync is not provably linear on V8), with parentheses in classes and quoting.
  '(\\w+)Sync\\(', '(?P<name>\\w+)(Sync)[(]', '\\w+Sync([(])', '\\Q(\\E(\\w+)Sync', '(\\w+)Sync[^)](a)?', '([a-z]+)_(b|c)',
];

test('every regex path finds exactly what a global scan of the whole text finds, with either case, under any limit', () => {
  const text = corpus();
  for (const source of PATTERNS) {
    for (const caseSensitive of [true, false]) {
      for (const max of [3, 1000]) {
        const got = textMatcher({ kind: 'regex', source }, caseSensitive).find(text, max);
        assert.equal(got, reference(source, caseSensitive, text, max), `/${source}/ case ${caseSensitive} max ${max}`);
      }
    }
  }
  // The long line: every match, in order.
  assert.is(textMatcher({ kind: 'regex', source: 'f\\d+Sync' }, true).find(text, 1000).length, 120);
});

test('a literal is matched as written, folded unless case-sensitive', () => {
  const text = 'a.b A.B a*b\nA.b';
  assert.equal(textMatcher({ kind: 'literal', source: 'a.b' }, true).find(text, 10), [{ index: 0, length: 3 }]);
  assert.equal(textMatcher({ kind: 'literal', source: 'a.b' }, false).find(text, 10).map((o) => o.index), [0, 4, 12]);
});

test('an ASCII literal without letters, or kept in case, and one that folds beyond ASCII', () => {
  const text = '## a\n# b ## c\nx## \n\u212A k K';
  assert.equal(textMatcher({ kind: 'literal', source: '## ' }, false).find(text, 10).map((o) => o.index), [0, 9, 15]);
  assert.equal(textMatcher({ kind: 'literal', source: 'K' }, true).find(text, 10).map((o) => o.index), [23]);
  // RE2 folds k with the Kelvin sign (U+212A): so does a folded literal.
  assert.equal(textMatcher({ kind: 'literal', source: 'k' }, false).find(text, 10).map((o) => o.index), [19, 21, 23]);
  assert.equal(textMatcher({ kind: 'regex', source: '^## \\w' }, false).find(text, 10).map((o) => o.index), [0]);
});

test('groups become non-capturing; escapes, quoting and bracket classes are kept as written', () => {
  const cases: Array<[string, string]> = [
    ['(a)(b|c)', '(?:a)(?:b|c)'],
    ['(?P<name>a)(?<other>b)', '(?:a)(?:b)'],
    ['(?:a)(?i)b(?i:c)', '(?:a)(?i)b(?i:c)'],
    ['\\(a\\)', '\\(a\\)'],
    ['[(](a)[^)(]', '[(](?:a)[^)(]'],
    ['[]()](a)', '[]()](?:a)'],
    ['[^]()](a)', '[^]()](?:a)'],
    ['[[:alpha:](](a)', '[[:alpha:](](?:a)'],
    ['[\\](](a)', '[\\](](?:a)'],
    ['\\Q(a)\\E(b)', '\\Q(a)\\E(?:b)'],
    ['\\Q(a)', '\\Q(a)'],
  ];
  for (const [source, expected] of cases) assert.is(withoutCaptures(source), expected, source);
});

test('only expressions that can never match a line break run line by line', () => {
  for (const safe of ['function \\w+Sync\\(', '^a.b$', '[a-z_]+', '[\\w.]+', '(?:a|b)c', '(?P<x>a)b', '\\bx\\B', 'a\\tb', '[ -~]']) assert.ok(matchesWithinLine(safe), safe);
  for (const unsafe of ['a\\sb', 'a\\nb', '[^a]', '[\\s]', 'a\\Wb', '\\Dx', '[\\x00-\\x7f]', '[\\t-\\r]', '[[:space:]]', '(?s)a.b', '(?i)a', '\\Aa', 'a\\z', '\\pCa', 'a\\x0ab', '[\x01-z]', 'a\nb']) {
    assert.not.ok(matchesWithinLine(unsafe), unsafe);
  }
  assert.equal(requiredLiterals('function \\w+Sync\\('), ['function ', 'Sync(']);
});

test.run();
