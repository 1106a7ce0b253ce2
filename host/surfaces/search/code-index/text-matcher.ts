import { LruMap } from '../../../platform/runtime/lru-map.js';
import type { TextPattern } from '../query/search-query.js';
import { re2InUtf16, type Exec } from './re2-in-utf16.js';
import { matchesWithinLine, requiredLiterals } from './regex-literals.js';
import { chooseRegexEngine } from './v8-regex/regex-engine-choice.js';

/** One occurrence: UTF-16 index into the content and length. */
export interface Occurrence {
  index: number;
  length: number;
}

/** Finds a pattern's occurrences in a file's content. */
export interface TextMatcher {
  find(content: string, max: number): Occurrence[];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiled expressions by flags and source: a repeated query compiles nothing (RE2 compiles in wasm, and its objects are never freed). */
const compiled = new LruMap<string, Exec>(256);

function compile(source: string, flags: string, engine: 'js' | 're2'): Exec {
  const key = `${engine}/${flags}/${source}`;
  let re = compiled.get(key);
  if (!re) {
    re = engine === 'js' ? (new RegExp(source, flags) as unknown as Exec) : re2InUtf16(source, flags);
    compiled.set(key, re);
  }
  return re;
}

/** Matchers by case and pattern: a repeated query neither translates nor compiles its expression again. */
const matchers = new LruMap<string, TextMatcher>(256);

/**
 * A literal runs as an escaped JavaScript expression (no backtracking possible); a user's regular
 * expression runs on V8's engine when it provably takes linear time there (v8-regex/), else in RE2
 * (linear time for any expression), so no query can stall the process. RE2 (wasm) copies the
 * whole text it is given on every call, so an expression that cannot match across lines and holds
 * literals runs only on the lines holding them (found by JavaScript), each alone, and without
 * capturing groups; one without metacharacters runs as a literal.
 */
export function textMatcher(pattern: TextPattern, caseSensitive: boolean): TextMatcher {
  const key = `${caseSensitive ? 'c' : 'f'}${pattern.kind === 'literal' ? 'l' : 'r'}${pattern.source}`;
  let matcher = matchers.get(key);
  if (!matcher) {
    matcher = newTextMatcher(pattern, caseSensitive);
    matchers.set(key, matcher);
  }
  return matcher;
}

function newTextMatcher(pattern: TextPattern, caseSensitive: boolean): TextMatcher {
  if (pattern.kind === 'literal') {
    const re = literalExpression(pattern.source, caseSensitive);
    return { find: (content, max) => collect(re, content, 0, max, []) };
  }
  const plain = plainLiteral(pattern.source);
  if (plain !== undefined) return newTextMatcher({ kind: 'literal', source: plain }, caseSensitive);
  const engine = chooseRegexEngine(pattern.source, caseSensitive);
  const re = engine.engine === 'v8' ? compile(engine.source, 'gu', 'js') : re2Expression(pattern.source, `g${caseSensitive ? '' : 'i'}mu`);
  const literals = [...new Set(requiredLiterals(pattern.source))].sort((a, b) => b.length - a.length);
  if (!literals.length) return { find: (content, max) => collect(re, content, 0, max, []) };
  const scan: Scan = (text, offset, max, out) => collect(re, text, offset, max, out);
  if (!matchesWithinLine(pattern.source)) return { find: (content, max) => scan(content, 0, max, []) };
  const [anchor, ...others] = literals.map((l) => literalExpression(l, caseSensitive));
  return { find: (content, max) => collectByLine(scan, anchor!, others, content, max) };
}

/**
 * A literal as a global JavaScript expression. ASCII needs no u flag (no surrogate halves to
 * step over), nor the i flag when the search keeps case or the literal has no letters; V8 searches
 * such a literal many times faster without them (`## ` over a 6 MB repository: 0.1 ms instead of
 * 3 ms). Case folding otherwise follows Unicode's (the u flag: `k` finds the Kelvin sign, as RE2
 * folds it).
 */
function literalExpression(literal: string, caseSensitive: boolean): Exec {
  if (/^[\x00-\x7f]*$/.test(literal) && (caseSensitive || !/[A-Za-z]/.test(literal))) return compile(escapeRegExp(literal), 'g', 'js');
  return compile(escapeRegExp(literal), `g${caseSensitive ? '' : 'i'}u`, 'js');
}

/** An expression for RE2, without capturing groups; as written should RE2 refuse the rewrite (it never should). */
function re2Expression(source: string, flags: string): Exec {
  try {
    return compile(withoutCaptures(source), flags, 're2');
  } catch {
    return compile(source, flags, 're2');
  }
}

type Scan = (text: string, offset: number, max: number, out: Occurrence[]) => Occurrence[];

/** The text an expression without metacharacters matches (escaped punctuation allowed), else undefined. */
function plainLiteral(source: string): string | undefined {
  let text = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const n = source[++i];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) return undefined;
      text += n;
    } else if ('.^$*+?()[]{}|'.includes(c)) return undefined;
    else text += c;
  }
  return text || undefined;
}

/** Occurrences of re in text, at most max in out, each index plus offset. */
function collect(re: Exec, text: string, offset: number, max: number, out: Occurrence[]): Occurrence[] {
  let from = 0;
  while (out.length < max && from <= text.length) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) break;
    const length = m[0]!.length;
    // V8 (u flag) tries a zero-width start between the halves of a surrogate pair ((?<!…), \B); RE2 never starts there.
    if (isPairAt(text, m.index - 1)) {
      from = m.index + 1;
      continue;
    }
    out.push({ index: offset + m.index, length });
    // An empty match (/^/, /x*/) moves on by one character (a surrogate pair is one) so the scan ends.
    from = m.index + (length || (isPairAt(text, m.index) ? 2 : 1));
  }
  return out;
}

function isPairAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
}

/**
 * As scan over the whole content, for an expression whose matches never hold a line break and
 * always hold every literal (anchor and others): only lines holding them all can match, and a
 * line alone gives the same matches as the whole text (a line starts after "\n" or at 0, ends
 * before "\n" or at the end, so ^, $ and \b see what they would).
 */
function collectByLine(scan: Scan, anchor: Exec, others: Exec[], content: string, max: number): Occurrence[] {
  const out: Occurrence[] = [];
  anchor.lastIndex = 0;
  while (out.length < max) {
    const hit = anchor.exec(content);
    if (!hit) break;
    const start = content.lastIndexOf('\n', hit.index - 1) + 1;
    const newline = content.indexOf('\n', hit.index);
    const end = newline === -1 ? content.length : newline;
    const line = content.slice(start, end);
    if (others.every((o) => ((o.lastIndex = 0), o.exec(line) !== null))) scan(line, start, max, out);
    if (newline === -1) break;
    anchor.lastIndex = newline + 1;
  }
  return out;
}

/**
 * The expression with every group non-capturing (`(x)` and `(?P<n>x)` as `(?:x)`): it matches
 * the same text, and RE2 finds a match without filling groups many times faster (it needs its
 * NFA for groups; on the lines of a C repository holding `static int `, 1.7 ms instead of 5.1 ms
 * per pass). Escapes, `\Q…\E` and bracket classes are copied as they are.
 */
export function withoutCaptures(source: string): string {
  let out = '';
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      if (source[i + 1] === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        const stop = end === -1 ? source.length : end + 2;
        out += source.slice(i, stop);
        i = stop;
      } else {
        out += source.slice(i, i + 2);
        i += 2;
      }
    } else if (c === '[') {
      const end = classEnd(source, i);
      out += source.slice(i, end);
      i = end;
    } else if (c === '(' && source[i + 1] !== '?') {
      out += '(?:';
      i++;
    } else if (c === '(' && /^\(\?P?<[A-Za-z_]\w*>/.test(source.slice(i))) {
      out += '(?:';
      i = source.indexOf('>', i) + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index after a bracket class opened at `open` (a `]` first or after `^` is a member; `[:alpha:]` is one). */
function classEnd(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === '^') i++;
  if (source[i] === ']') i++;
  while (i < source.length && source[i] !== ']') {
    if (source[i] === '\\') i += 2;
    else if (source[i] === '[' && source[i + 1] === ':') {
      const end = source.indexOf(':]', i + 2);
      i = end === -1 ? i + 1 : end + 2;
    } else i++;
  }
  return Math.min(i + 1, source.length);
}
