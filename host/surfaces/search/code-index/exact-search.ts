import path from 'node:path';
import type { SearchQuery } from '../query/search-query.js';
import type { CodeIndexReader, IndexedFile } from './code-index-reader.js';
import { requiredLiterals, searchablePhrases } from './regex-literals.js';
import { textMatcher, type Occurrence, type TextMatcher } from './text-matcher.js';

/** One matching line: 1-based line and column, the byte offset of the match in the file (UTF-8), its length in bytes, the line. */
export interface LineMatch {
  line: number;
  column: number;
  byte_offset: number;
  byte_length: number;
  text: string;
}

export interface FileMatches {
  path: string;
  language: string;
  score: number;
  match_count: number;
  matches: LineMatch[];
}

export interface ExactSearchLimits {
  /** Files returned. */
  maxFiles: number;
  /** Matches listed per file (match_count counts up to maxCount). */
  maxMatchesPerFile: number;
  /** Stop confirming candidates after this long; results so far are returned, marked partial. */
  budgetMs: number;
}

/** Longest line text returned with a match. */
const LINE_CHARS = 300;
/** Occurrences counted per pattern per file. */
const MAX_COUNT = 1000;

/**
 * Exact search in one revision's code index: candidate files by trigram, then every phrase,
 * regex and (in an exact query) word confirmed on the content with the query's case, excluded
 * patterns and path filters applied, matches reported by line with byte offsets.
 */
export function exactSearch(reader: CodeIndexReader, query: SearchQuery, limits: ExactSearchLimits): { files: FileMatches[]; partial: boolean } {
  const positives = [...query.patterns, ...query.words.map((w) => ({ kind: 'literal' as const, source: w }))];
  const literals = positives.flatMap((p) => (p.kind === 'literal' ? [p.source] : requiredLiterals(p.source)));
  const matchers = positives.map((p) => textMatcher(p, query.caseSensitive));
  const excluded = query.excluded.map((p) => textMatcher(p, query.caseSensitive));
  const started = performance.now();
  const found: FileMatches[] = [];
  let partial = false;
  // One read transaction: every candidate's content from the revision the candidates came from.
  reader.read(() => {
    for (const candidate of reader.candidates(searchablePhrases(literals), { only: query.langs, not: query.notLangs })) {
      if (performance.now() - started > limits.budgetMs) {
        partial = true;
        break;
      }
      // The path first: a file filtered out is never read.
      if (!pathAllowed(candidate.path, query)) continue;
      const matched = matchFile({ ...candidate, content: reader.content(candidate.id) }, matchers, excluded, limits.maxMatchesPerFile);
      if (matched) found.push(matched);
    }
  });
  found.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  return { files: found.slice(0, limits.maxFiles), partial };
}

export function pathAllowed(p: string, query: Pick<SearchQuery, 'files' | 'notFiles'>): boolean {
  return query.files.every((re) => re.test(p)) && !query.notFiles.some((re) => re.test(p));
}

function matchFile(file: IndexedFile, matchers: TextMatcher[], excluded: TextMatcher[], maxListed: number): FileMatches | undefined {
  if (excluded.some((m) => m.find(file.content, 1).length)) return undefined;
  const occurrences: Occurrence[] = [];
  for (const m of matchers) {
    const found = m.find(file.content, MAX_COUNT);
    if (!found.length) return undefined; // every pattern must occur in the file
    occurrences.push(...found);
  }
  occurrences.sort((a, b) => a.index - b.index);
  const matches = toLineMatches(file.content, occurrences, maxListed);
  const base = path.posix.basename(file.path).toLowerCase();
  // More occurrences rank higher, with diminishing returns; a file named after what is sought first.
  const inName = matchers.some((m) => m.find(base, 1).length) ? 2 : 0;
  return { path: file.path, language: file.language, score: 1 + Math.log2(1 + occurrences.length) + inName, match_count: occurrences.length, matches };
}

/**
 * Occurrences (ordered) as line matches: lines by walking the content once, byte offsets by the
 * UTF-8 length of the text between one occurrence and the next (once per occurrence: measuring
 * every line on the way cost more than finding the matches).
 */
function toLineMatches(content: string, occurrences: Occurrence[], max: number): LineMatch[] {
  const out: LineMatch[] = [];
  let line = 1;
  let lineStart = 0;
  let measured = 0;
  let measuredBytes = 0;
  for (const o of occurrences.slice(0, max)) {
    for (let nl = content.indexOf('\n', lineStart); nl !== -1 && nl < o.index; nl = content.indexOf('\n', lineStart)) {
      lineStart = nl + 1;
      line++;
    }
    measuredBytes += Buffer.byteLength(content.slice(measured, o.index));
    measured = o.index;
    const lineEnd = content.indexOf('\n', lineStart);
    const text = content.slice(lineStart, lineEnd === -1 ? content.length : lineEnd).replace(/\r$/, '');
    out.push({
      line,
      column: o.index - lineStart + 1,
      byte_offset: measuredBytes,
      byte_length: Buffer.byteLength(content.slice(o.index, o.index + o.length)),
      text: text.length > LINE_CHARS ? `${text.slice(0, LINE_CHARS)}…` : text,
    });
  }
  return out;
}
