import { LruMap } from '../../../platform/runtime/lru-map.js';
import { newRE2 } from './re2-engine.js';
import { searchErrors } from '../search-errors.js';

/** Regular expressions RE2 accepted lately: a repeated query is not compiled again just to be checked. */
const validRegexes = new LruMap<string, true>(256);

/** A text to find: a phrase (`"…"`, or a word in an exact query) or a regular expression (`/…/`). */
export interface TextPattern {
  kind: 'literal' | 'regex';
  source: string;
}

/**
 * A parsed query (docs/search/code-search.md "Query language"). Bare words stay the ranked search
 * they always were; phrases and regular expressions make it an exact search over the code index;
 * the fields filter either.
 */
export interface SearchQuery {
  words: string[];
  patterns: TextPattern[];
  /** `-word`, `-"phrase"`, `-/regex/`: a file holding one is left out. */
  excluded: TextPattern[];
  repos: RegExp[];
  notRepos: RegExp[];
  files: RegExp[];
  notFiles: RegExp[];
  langs: string[];
  notLangs: string[];
  symbols: string[];
  /** case:yes matches the case written; case:no (the default) folds it; case:auto is yes when the query has a capital. */
  caseSensitive: boolean;
  rev?: string;
}

export type SearchMode = 'ranked' | 'exact' | 'symbols';

/** The languages `lang:` accepts (the chunker's, plus the aliases people type). */
const LANGUAGE_ALIASES: Record<string, string[]> = {
  typescript: ['typescript', 'tsx'], ts: ['typescript', 'tsx'], tsx: ['tsx'],
  javascript: ['javascript'], js: ['javascript'],
  python: ['python'], py: ['python'],
  go: ['go'], golang: ['go'],
  rust: ['rust'], rs: ['rust'],
  java: ['java'],
  c: ['c'], cpp: ['cpp'], 'c++': ['cpp'],
  markdown: ['markdown'], md: ['markdown'],
  text: ['text'],
};

const FIELDS = new Set(['repo', 'file', 'path', 'lang', 'sym', 'case', 'rev']);

/** Longest regular expression accepted (RE2 runs in linear time; a long one still costs memory). */
const MAX_REGEX = 500;

class QueryError extends Error {
  constructor(readonly position: number, readonly reason: string) {
    super(reason);
  }
}

/** 400 query_invalid with the 1-based character position of the fault. */
function fault(position: number, reason: string): never {
  throw new QueryError(position, reason);
}

/** Parses `q`; a malformed query answers 400 `query_invalid` naming the position (1-based) and what is wrong. */
export function parseSearchQuery(q: string): SearchQuery {
  try {
    return parse(q);
  } catch (err) {
    if (err instanceof QueryError) throw searchErrors.error('query_invalid', { position: err.position + 1, reason: err.reason });
    throw err;
  }
}

function parse(q: string): SearchQuery {
  const query: SearchQuery = { words: [], patterns: [], excluded: [], repos: [], notRepos: [], files: [], notFiles: [], langs: [], notLangs: [], symbols: [], caseSensitive: false };
  let caseMode = 'no' as 'yes' | 'no' | 'auto';
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i]!)) {
      i++;
      continue;
    }
    let negated = false;
    // `-` negates a word, phrase, regex or field; `--flag` and a lone `-` stay words.
    if (q[i] === '-' && /[A-Za-z0-9_"\/]/.test(q[i + 1] ?? '')) {
      negated = true;
      i++;
    }
    if (q[i] === '"') {
      const { text, end } = quoted(q, i);
      if (!text) fault(i, 'an empty phrase ""');
      (negated ? query.excluded : query.patterns).push({ kind: 'literal', source: text });
      i = end;
      continue;
    }
    const re = q[i] === '/' ? regex(q, i) : undefined;
    if (re) {
      (negated ? query.excluded : query.patterns).push({ kind: 'regex', source: re.text });
      i = re.end;
      continue;
    }
    const field = /^([a-z]+):/.exec(q.slice(i));
    if (field && FIELDS.has(field[1]!)) {
      const name = field[1]!;
      const valueAt = i + field[0].length;
      let value: string;
      if (q[valueAt] === '"') {
        const v = quoted(q, valueAt);
        value = v.text;
        i = v.end;
      } else {
        let end = valueAt;
        while (end < q.length && !/\s/.test(q[end]!)) end++;
        value = q.slice(valueAt, end);
        i = end;
      }
      if (!value) fault(valueAt, `${name}: needs a value`);
      applyField(query, name, value, negated, valueAt, (mode) => (caseMode = mode));
      continue;
    }
    let end = i;
    while (end < q.length && !/\s/.test(q[end]!)) end++;
    const word = q.slice(i, end);
    if (negated) query.excluded.push({ kind: 'literal', source: word });
    else query.words.push(word);
    i = end;
  }
  if (!query.words.length && !query.patterns.length && !query.symbols.length) fault(0, 'nothing to search for: a word, a "phrase", a /regex/ or sym:name is needed beside the filters');
  query.caseSensitive = caseMode === 'yes' || (caseMode === 'auto' && /[A-Z]/.test([...query.words, ...query.patterns.map((p) => p.source), ...query.symbols].join(' ')));
  return query;
}

function applyField(query: SearchQuery, name: string, value: string, negated: boolean, at: number, setCase: (mode: 'yes' | 'no' | 'auto') => void): void {
  switch (name) {
    case 'repo':
      (negated ? query.notRepos : query.repos).push(compile(value, at, 'repo:'));
      return;
    case 'file':
    case 'path':
      (negated ? query.notFiles : query.files).push(compile(value, at, `${name}:`));
      return;
    case 'lang': {
      const langs = LANGUAGE_ALIASES[value.toLowerCase()];
      if (!langs) fault(at, `lang:${value} is not a language this index knows (${Object.keys(LANGUAGE_ALIASES).join(', ')})`);
      (negated ? query.notLangs : query.langs).push(...langs);
      return;
    }
    case 'sym':
      if (negated) fault(at - 5, '-sym: is not supported; sym: finds definitions');
      query.symbols.push(value);
      return;
    case 'case':
      if (negated) fault(at - 6, '-case: means nothing; write case:yes or case:no');
      if (value !== 'yes' && value !== 'no' && value !== 'auto') fault(at, `case:${value}: the value is yes, no or auto`);
      setCase(value);
      return;
    case 'rev':
      if (negated) fault(at - 5, '-rev: is not supported; rev: selects one revision');
      if (query.rev !== undefined && query.rev !== value) fault(at, `a second rev: (${query.rev} and ${value}); one revision per query`);
      if (!/^[A-Za-z0-9._\/-]{1,200}$/.test(value) || value.includes('..')) fault(at, `rev:${value} is not a branch or tag name`);
      query.rev = value;
      return;
  }
}

/** A field's value as a case-insensitive regular expression (plain text is a substring match). */
function compile(value: string, at: number, field: string): RegExp {
  try {
    return new RegExp(value, 'i');
  } catch (err) {
    fault(at, `${field}${value} is not a valid regular expression (${(err as Error).message})`);
  }
}

function quoted(q: string, open: number): { text: string; end: number } {
  let text = '';
  for (let i = open + 1; i < q.length; i++) {
    const c = q[i]!;
    if (c === '\\' && (q[i + 1] === '"' || q[i + 1] === '\\')) {
      text += q[++i];
      continue;
    }
    if (c === '"') return { text, end: i + 1 };
    text += c;
  }
  fault(open, 'a phrase opened with " is never closed');
}

/** A `/…/` token; undefined when no closing `/` ends a token (then `/health/ready` is a plain word). */
function regex(q: string, open: number): { text: string; end: number } | undefined {
  for (let i = open + 1; i < q.length; i++) {
    const c = q[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    // A regular expression ends at a "/" followed by a space or the end of the query.
    if (c === '/' && (i + 1 === q.length || /\s/.test(q[i + 1]!))) {
      const text = q.slice(open + 1, i).replace(/\\\//g, '/');
      if (!text) fault(open, 'an empty regular expression //');
      if (text.length > MAX_REGEX) fault(open, `the regular expression is longer than ${MAX_REGEX} characters`);
      try {
        if (!validRegexes.get(text)) {
          newRE2(text, 'u');
          validRegexes.set(text, true);
        }
      } catch (err) {
        fault(open + 1, `/${text}/ is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`);
      }
      return { text, end: i + 1 };
    }
  }
  return undefined;
}

/** What a query asks for: definitions (sym: alone), exact matches (a phrase or regex), or the ranked search of its words. */
export function searchMode(query: SearchQuery): SearchMode {
  if (query.patterns.length) return 'exact';
  if (query.symbols.length) return 'symbols';
  return 'ranked';
}

/** Only words: today's ranked search, untouched. */
export function isPlainQuery(query: SearchQuery): boolean {
  return (
    !query.patterns.length && !query.excluded.length && !query.repos.length && !query.notRepos.length && !query.files.length && !query.notFiles.length &&
    !query.langs.length && !query.notLangs.length && !query.symbols.length && query.rev === undefined
  );
}
