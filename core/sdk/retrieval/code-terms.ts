/**
 * Code-aware terms. A store that cannot run a tokenizer written in JS (FTS5) gets its terms from
 * here, before insert and at query time alike: `parseHttpHeader`, `parse_http_header` and
 * `parse-http-header` all give `parse http header` plus the whole word `parsehttpheader`.
 */
import { stem } from './stem.js';

const WORD = /[A-Za-z0-9_$]+(?:-[A-Za-z0-9_$]+)*/g;
const CAMEL = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g;

/** The lowercase parts of one identifier, and the whole word when it has several parts. */
export function identifierTerms(word: string, out: string[] = []): string[] {
  const parts: string[] = [];
  for (const piece of word.split(/[_$-]+/)) {
    if (!piece) continue;
    const camel = piece.match(CAMEL);
    if (camel) for (const p of camel) parts.push(p.toLowerCase());
  }
  for (const p of parts) out.push(p);
  if (parts.length > 1) out.push(parts.join(''));
  return out;
}

/** Every term of a text, in order (duplicates kept: term frequency matters to BM25). */
export function textTerms(text: string, limit = Number.POSITIVE_INFINITY): string[] {
  const out: string[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m && out.length < limit; m = WORD.exec(text)) {
    const word = m[0];
    if (word.length > 64) continue; // hashes, base64: no one searches for them
    identifierTerms(word, out);
  }
  return out;
}

/** Terms of a repository path: every directory, the file name without extension, the extension. */
export function pathTerms(filePath: string): string[] {
  const out: string[] = [];
  for (const segment of filePath.split('/')) {
    const dot = segment.lastIndexOf('.');
    const stem = dot > 0 ? segment.slice(0, dot) : segment;
    for (const piece of stem.split('.')) identifierTerms(piece, out);
    if (dot > 0) out.push(segment.slice(dot + 1).toLowerCase());
  }
  return out;
}

/** Words of a question that say nothing about where code lives. */
const STOPWORDS = new Set(
  (
    'a an and any are as at be been by can code could do does file files find for from get gets got has have how i ' +
    'if in into is it its me my of on or our should so that the their them then there these this those to up use ' +
    'used uses using was we were what when where which who whom why will with would you your'
  ).split(' '),
);

/** The distinct terms of a query; stop words are dropped when they stand alone (unless nothing else is left). */
export function queryTerms(query: string, max = 32): string[] {
  const all: string[] = [];
  const kept: string[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(query); m; m = WORD.exec(query)) {
    const terms = identifierTerms(m[0]);
    all.push(...terms);
    // `which file` loses `file`; `readFileSync` keeps it: parts of identifiers are never stop words.
    if (terms.length === 1 && STOPWORDS.has(terms[0]!)) continue;
    // One letter alone is noise (the "s" of "logger's"), never a place in code.
    if (terms.length === 1 && terms[0]!.length < 2) continue;
    kept.push(...terms);
  }
  return [...new Set(kept.length ? kept : all)].slice(0, max);
}

// Words repeat across chunks and queries: their stemmed terms are remembered (bounded).
const WORD_CACHE_LIMIT = 100_000;
const wordCache = new Map<string, string[]>();

function stemmedTermsOfWord(word: string): string[] {
  let terms = wordCache.get(word);
  if (!terms) {
    terms = identifierTerms(word).map(stem);
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
    wordCache.set(word, terms);
  }
  return terms;
}

/** Terms as stored in an index and looked up in it: code-aware, then stemmed (duplicates kept for BM25). */
export function indexTerms(text: string): string {
  const out: string[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    if (m[0].length > 64) continue;
    for (const t of stemmedTermsOfWord(m[0])) out.push(t);
  }
  return out.join(' ');
}

/** The distinct stemmed terms of a text, for matching in JS (the re-scoring step). */
export function stemmedTermSet(text: string): Set<string> {
  const out = new Set<string>();
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    if (m[0].length > 64) continue;
    for (const t of stemmedTermsOfWord(m[0])) out.add(t);
  }
  return out;
}

/** Terms of a repository path as stored in an index: pathTerms, stemmed, joined by spaces. */
export function indexPathTerms(filePath: string): string {
  return pathTerms(filePath).map(stem).join(' ');
}
