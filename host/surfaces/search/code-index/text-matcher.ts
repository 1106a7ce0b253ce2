import { newRE2 } from '../query/re2-engine.js';
import type { TextPattern } from '../query/search-query.js';

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

/**
 * A literal runs as an escaped JavaScript expression (no backtracking possible); a user's regular
 * expression runs in RE2 (linear time), so no query can stall the process.
 */
export function textMatcher(pattern: TextPattern, caseSensitive: boolean): TextMatcher {
  const flags = `g${caseSensitive ? '' : 'i'}`;
  if (pattern.kind === 'literal') {
    const re = new RegExp(escapeRegExp(pattern.source), `${flags}u`);
    return { find: (content, max) => collect((from) => ((re.lastIndex = from), re.exec(content)), max) };
  }
  const re = newRE2(pattern.source, `${flags}mu`);
  return { find: (content, max) => collect((from) => ((re.lastIndex = from), re.exec(content) as { index: number; [0]: string } | null), max) };
}

function collect(next: (from: number) => { index: number; [0]: string } | null, max: number): Occurrence[] {
  const out: Occurrence[] = [];
  let from = 0;
  while (out.length < max) {
    const m = next(from);
    if (!m) break;
    out.push({ index: m.index, length: m[0].length });
    // An empty match (/^/, /x*/) moves on by one so the scan ends.
    from = m.index + Math.max(1, m[0].length);
  }
  return out;
}
