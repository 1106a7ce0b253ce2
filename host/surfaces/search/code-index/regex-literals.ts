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
      run = run.slice(0, -1); // the character before may be absent
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

/** The distinct trigrams of the literals, for an FTS5 trigram query (each token quoted). */
export function trigramsOf(literals: string[]): string[] {
  const set = new Set<string>();
  for (const l of literals) {
    const chars = [...l.toLowerCase()];
    for (let i = 0; i + 3 <= chars.length; i++) set.add(chars.slice(i, i + 3).join(''));
  }
  return [...set];
}
