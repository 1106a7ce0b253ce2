/**
 * Literal strings every match of a regular expression contains, for choosing candidate files by
 * trigram before the expression runs. Conservative: a construct it does not follow (a group, a
 * class, an alternation) ends a literal, and a top-level alternation yields none (scan everything).
 */
export function requiredLiterals(source: string): string[] {
  if (hasTopLevelAlternation(source)) return [];
  const out: string[] = [];
  let run = '';
  const flush = () => {
    if (run) out.push(run);
    run = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const n = source[i + 1] ?? '';
      i++;
      if (/[A-Za-z0-9]/.test(n)) {
        flush(); // \d \w \s \b \n ...: not one fixed character
        continue;
      }
      run += n;
      continue;
    }
    if (c === '*' || c === '?' || (c === '{' && /^\{0*[,}]/.test(source.slice(i)))) {
      run = run.slice(0, /[\udc00-\udfff]$/.test(run) ? -2 : -1); // the character before (both halves of a pair) may be absent
      flush();
      if (c === '{') i = skipTo(source, i, '}');
      continue;
    }
    if (c === '+' || c === '{') {
      flush();
      if (c === '{') i = skipTo(source, i, '}');
      continue;
    }
    if (c === '[') {
      flush();
      i = skipClass(source, i);
      continue;
    }
    if (c === '(') {
      flush();
      i = skipGroup(source, i);
      continue;
    }
    if (c === '.' || c === '^' || c === '$' || c === ')' || c === ']') {
      flush();
      continue;
    }
    run += c;
  }
  flush();
  return out;
}

function hasTopLevelAlternation(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = skipClass(source, i);
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

function skipTo(source: string, i: number, close: string): number {
  const end = source.indexOf(close, i);
  return end < 0 ? source.length : end;
}

function skipClass(source: string, open: number): number {
  for (let i = open + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === ']' && i > open + 1) return i;
  }
  return source.length;
}

function skipGroup(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '[') i = skipClass(source, i);
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) {
      // A group followed by ?, * or {0 may be absent; either way its contents are not followed.
      return i;
    }
  }
  return source.length;
}

/**
 * The literals an FTS5 trigram query can use: those of three characters or more (a shorter one
 * has no trigram), each once, longest first.
 */
export function searchablePhrases(literals: string[]): string[] {
  return [...new Set(literals)].filter((l) => [...l].length >= 3).sort((a, b) => b.length - a.length);
}

/** Escapes after which a matched character is never a line break (\b \B assert; \w \d \S \t \r \f \v \a are not \n). */
const LINE_SAFE_ESCAPES = new Set(['b', 'B', 'w', 'd', 'S', 't', 'r', 'f', 'v', 'a']);

/**
 * Whether no match of an RE2 expression (compiled with the m flag, not s) can hold a line break,
 * so that matching line by line finds exactly what matching the whole text finds. Judged from the
 * syntax and conservative: anything that could match "\n" (\s, \W, \D, \n, \x.., \p.., a negated
 * class, a class range over U+000A, a POSIX class), text anchors (\A, \z) and inline flags all
 * answer false.
 */
export function matchesWithinLine(source: string): boolean {
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n') return false;
    if (c === '\\') {
      if (!lineSafeEscape(source[++i])) return false;
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      // (?: and named groups only; (?i) (?s) (?-m) change what matches.
      if (!/^\(\?(:|P?<[A-Za-z_])/.test(source.slice(i, i + 5))) return false;
      continue;
    }
    if (c === '[') {
      const end = classWithinLine(source, i);
      if (end < 0) return false;
      i = end;
    }
  }
  return true;
}

/** The index of the class's closing bracket when no character of it is a line break, else -1. */
function classWithinLine(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === '^') return -1;
  // Code points of the atom before a '-' and of the range's start; undefined for an escape class (\w).
  let last: number | undefined | null = null;
  let rangeFrom: number | undefined | null = null;
  for (let first = true; i < source.length; i++, first = false) {
    const c = source[i]!;
    if (c === ']' && !first) return i;
    if (c === '[' && source[i + 1] === ':') return -1;
    if (c === '-' && last !== null && source[i + 1] !== ']') {
      rangeFrom = last;
      last = null;
      continue;
    }
    let code: number | undefined;
    if (c === '\\') {
      const n = source[++i];
      if (!lineSafeEscape(n)) return -1;
      code = /[A-Za-z]/.test(n!) ? undefined : n!.codePointAt(0);
    } else if (c === '\n') return -1;
    else code = c.codePointAt(0);
    if (rangeFrom !== null) {
      if (rangeFrom === undefined || code === undefined || (rangeFrom <= 10 && code >= 10)) return -1;
      rangeFrom = null;
      last = null;
    } else last = code;
  }
  return -1;
}

function lineSafeEscape(n: string | undefined): boolean {
  return n !== undefined && (!/[A-Za-z0-9]/.test(n) || LINE_SAFE_ESCAPES.has(n));
}
