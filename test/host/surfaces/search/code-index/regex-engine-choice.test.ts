import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RE2 } from 're2-wasm';
import { textMatcher, type Occurrence } from '../../../../../host/surfaces/search/code-index/text-matcher.js';
import { chooseRegexEngine } from '../../../../../host/surfaces/search/code-index/v8-regex/regex-engine-choice.js';
import { re2Reference } from './re2-reference.js';

interface Exec {
  lastIndex: number;
  exec(text: string): (Array<string | undefined> & { index: number }) | null;
}

/** Every match of a global scan (an empty match moves on by one character), at most max. */
function scan(re: Exec, text: string, max: number): Occurrence[] {
  const out: Occurrence[] = [];
  let from = 0;
  while (out.length < max && from <= text.length) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) break;
    if (m.index > 0 && /^[\ud800-\udbff][\udc00-\udfff]/.test(text.slice(m.index - 1, m.index + 1))) {
      from = m.index + 1; // V8 tries starts between the halves of a pair; RE2 (code points) never does
      continue;
    }
    out.push({ index: m.index, length: m[0]!.length });
    const astral = m[0]!.length === 0 && /^[\ud800-\udbff][\udc00-\udfff]/.test(text.slice(m.index, m.index + 2));
    from = m.index + (m[0]!.length || (astral ? 2 : 1));
  }
  return out;
}

/** Matches as (UTF-16 index, length): equal indexes give equal lines and UTF-8 byte offsets. */
function v8Scan(source: string, text: string, max: number): Occurrence[] {
  return scan(new RegExp(source, 'gu') as unknown as Exec, text, max);
}

function rng(seed: number): (n: number) => number {
  return (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
}

// Text that holds what RE2 and JavaScript treat differently: CRLF and a lone \r, \v \f, U+2028,
// no-break space, ſ and K (fold to s and k in RE2), é/É, dotless ı, an astral character, Arabic digits,
// empty lines, a long line, and no final newline.
const PIECES = ['a', 'b', 'S', 's', 'ſ', 'k', 'K', 'K', 'y', 'n', 'c', '_', '1', '9', ' ', '  ', '.', '(', ')', 'é', 'É', 'ı', '😀', '٣', '\t', '\v', '\f', '\u00a0', '\u2028', '\r\n', '\n', '\n\n', '\r', 'Sync', 'sync', 'foo_bar', 'ab', 'aa'];
function text(seed: number, length: number): string {
  const r = rng(seed);
  let t = '';
  while (t.length < length) t += PIECES[r(PIECES.length)];
  return t;
}
const TEXTS = [text(1, 1200), text(2, 1200), `${'ab_'.repeat(1500)}Sync\r\n${text(3, 300)}`];

// Hand-written: the bench's expressions and the constructs whose meaning differs between the engines.
const HAND_WRITTEN = [
  'function \\w+Sync\\(', 'new Error\\([\'"]Invalid', '\\.prototype\\.\\w+ = function', 'require\\([\'"]node:\\w+', 'export (async )?function parse\\w*',
  'throw new TypeError\\(`', 'def \\w+_queue\\(', 'func \\(\\w+ \\*\\w+\\) Get\\w*', 'class \\w+Store\\b', 'export function render\\w*\\(', '^## \\w+',
  'if err != nil \\{', 'static int \\w+_(load|parse)\\w*\\(',
  '\\w', '\\W', '\\d', '\\D', '\\s', '\\S', '.', '[^a]', '[^\\n]', '\\bs', 's\\b', '\\Bk', '^', '$', '^$', 'a$', '^a', '\\Aa', 'a\\z', '\\A', '\\z',
  'S', 's', 'k', 'K', '[a-z]', '[A-Z]+', '[^s]', '[^\\w]', '[\\w.]', '[\\s]+', '[ -~]', '[\\x00-\\x7f]', '\\x{1F600}', '\\x41', 'é', 'É', '😀', '[😀a]',
  '(?i)sync', '(?i)[^k]', 'y?', 'a*', 'x*', '', '(?:)', 'a|', '|a', 'Sync|sync|SYNC', '(?P<n>a)b', '(?:ab|a)b', '(ab|a)?b', '(ab|a)??b', 'a+?', 'a{2}', 'a{1,3}',
  'a{1,3}?b', 'a{,3}', 'a{', '\\{', '}', ']', '\\_', '\\-', '\\]', '\\t', '\\v', '\\f', '\\r', '\\n', '\\r\\n', '.\\n', '.+', '.*?c', '\\s+\\w', '\\w+\\s',
  ' \\w+ ', '\\(\\w*\\)', '\\b\\w+\\b', '_\\w+_', '(?:a|b)(?:c|d)', '[[:alpha:]]', '\\pL', '\\Qa.b\\E', '(?s).', '(?m)^a', '(?i)é', '[ſ]', '[K]',
];

/** A random expression of the constructs the translation knows, and a few it does not. */
function generated(count: number): string[] {
  const r = rng(42);
  const atoms = ['a', 'b', 's', 'S', 'k', 'y', 'n', 'c', '_', ' ', '1', 'é', '\\.', '\\(', '\\w', '\\W', '\\d', '\\s', '\\S', '.', '[a-c]', '[^a]', '[\\w ]', '[sk_]', '[^\\s]', '\\b', '^', '$', '😀', 'Sync'];
  const quantifiers = ['', '', '', '*', '+', '?', '*?', '+?', '{2}', '{1,3}', '{0,2}?'];
  const piece = (depth: number): string => {
    const k = r(10);
    if (k === 0 && depth < 2) return `(?:${piece(depth + 1)}${piece(depth + 1)}|${piece(depth + 1)})${['', '?', '*'][r(3)]}`;
    if (k === 1 && depth < 2) return `(${piece(depth + 1)}${piece(depth + 1)})${['', '?', '+'][r(3)]}`;
    const atom = atoms[r(atoms.length)]!;
    return atom === '\\b' || atom === '^' || atom === '$' ? atom : atom + quantifiers[r(quantifiers.length)];
  };
  const out = new Set<string>();
  while (out.size < count) {
    const source = Array.from({ length: 1 + r(4) }, () => piece(0)).join('');
    try {
      new RE2(source, 'u');
      out.add(source);
    } catch {
      // not valid RE2: never reaches the matcher (the query parser refuses it)
    }
  }
  return [...out];
}

test('every expression routed to V8 finds exactly what RE2 finds: same matches at the same offsets, either case, on varied text', () => {
  let onV8 = 0;
  for (const source of [...HAND_WRITTEN, ...generated(400)]) {
    for (const caseSensitive of [true, false]) {
      const choice = chooseRegexEngine(source, caseSensitive);
      if (choice.engine !== 'v8') continue;
      onV8++;
      for (const t of TEXTS) {
        const what = `/${source}/ case ${caseSensitive} as /${choice.source}/u`;
        const expected = re2Reference(source, caseSensitive, t, 200);
        assert.equal(v8Scan(choice.source, t, 200), expected, what);
        // The matcher as exact search uses it (line by line when it can) gives the same.
        assert.equal(textMatcher({ kind: 'regex', source }, caseSensitive).find(t, 200), expected, `matcher ${what}`);
      }
    }
  }
  assert.ok(onV8 > 300, `only ${onV8} expressions ran on V8`);
});

test("the bench's expressions run on V8, except one that is super-linear on a backtracking engine", () => {
  const bench = HAND_WRITTEN.slice(0, 13);
  for (const caseSensitive of [true, false]) {
    const routed = bench.map((s) => chooseRegexEngine(s, caseSensitive).engine);
    assert.equal(routed, [...Array(12).fill('v8'), 're2'], `case ${caseSensitive}`);
  }
});

// Exponential on a backtracking engine (nested or overlapping repetition), or polynomial (a run
// retried from every start, repetitions competing for one run).
const CATASTROPHIC: [string, string][] = [
  ['(a+)+$', `${'a'.repeat(40)}!`],
  ['(a|aa)*b', 'a'.repeat(60)],
  ['(\\w+\\s?)*$', `${'word '.repeat(12)}!`],
  ['(x+x+)+y', 'x'.repeat(40)],
  ['(?:a|a)*c', 'a'.repeat(40)],
  ['(a|ab|b)*c', 'ab'.repeat(40)],
  ['(\\d+|\\w+)+!', '1'.repeat(40)],
  ['(.*a){12}', 'a'.repeat(40)],
  ['\\s+$', `${' '.repeat(50_000)}x`],
  ['\\w+Sync', `${'a'.repeat(50_000)} `],
  ['a*a*a*a*a*a*b', 'a'.repeat(5_000)],
  ['\\w*\\w*\\w*x', 'a'.repeat(5_000)],
  ['x\\w+y', 'x'.repeat(50_000)],
  ['static int \\w+_(load|parse)\\w*\\(', `static int a${'_load'.repeat(10_000)}`],
  ['^\\s*$', `${'\n'.repeat(5)}${' '.repeat(50_000)}x`],
  ['[a-z]{0,1000}!', 'a'.repeat(50_000)],
  ['(a?){30}a{30}', 'a'.repeat(30)],
];

test('known catastrophic expressions are routed to RE2, and answer on an adversarial input', () => {
  for (const [source, input] of CATASTROPHIC) {
    for (const caseSensitive of [true, false]) {
      const choice = chooseRegexEngine(source, caseSensitive);
      assert.is(choice.engine, 're2', `/${source}/ case ${caseSensitive}: ${choice.engine === 'v8' ? choice.source : ''}`);
    }
    textMatcher({ kind: 'regex', source }, true).find(input, 10);
  }
});

test('safe shapes run on V8: a repetition after a fixed character outside its set, at a line start, after \\b, or at the end', () => {
  // \b bars re-entry only when the folded set holds no ſ or K (not word characters to \b).
  assert.is(chooseRegexEngine('\\b\\w+Sync\\b', true).engine, 'v8');
  for (const source of ['^\\w+:', 'foo\\w*', '\\w+', ' \\w+ = ', 'x+', 'colou?r', '"[^"\\n]*"', '\\(\\d+\\)', 'a.*']) {
    assert.is(chooseRegexEngine(source, false).engine, 'v8', source);
  }
  // Outside the translated subset, or folding beyond ASCII: RE2.
  for (const source of ['\\pL+', '[[:alpha:]]', '\\Qa\\E', '(?s)a.b', 'é']) assert.is(chooseRegexEngine(source, false).engine, 're2', source);
  assert.is(chooseRegexEngine('é', true).engine, 'v8');
});

test.run();
