import { identifierTerms } from './identifier-terms.js';

/** A file of a repository as the keyword builder reads it. */
export interface SourceText {
  path: string;
  text: string;
}

export interface KeywordLimits {
  /** KEYWORDS_MAX_PER_REPO: keywords kept. */
  maxPerRepo: number;
  /** KEYWORDS_MIN_FREQ: files a term must appear in. */
  minFreq: number;
  /**
   * Share of files a term may appear in at most: a term in most files names no topic.
   * Small repositories keep at least `minFreq` as the ceiling so something can qualify.
   */
  maxDfShare?: number;
}

export interface Keyword {
  term: string;
  score: number;
  /** Files holding the term. */
  df: number;
  /** Occurrences across the repository. */
  tf: number;
}

export interface KeywordBuild {
  keywords: Keyword[];
  files: number;
}

/**
 * Discriminative keywords of a repository: terms scored tf × ln(N / (1 + df)), kept when
 * MIN_FREQ ≤ df ≤ maxDfShare × N, best first (ties by term, so a rebuild is stable).
 */
export async function buildKeywords(files: AsyncIterable<SourceText> | Iterable<SourceText>, limits: KeywordLimits): Promise<KeywordBuild> {
  const tf = new Map<string, number>();
  const df = new Map<string, number>();
  let n = 0;
  for await (const file of files) {
    n++;
    const seen = new Set<string>();
    for (const term of identifierTerms(file.text)) {
      tf.set(term, (tf.get(term) ?? 0) + 1);
      if (!seen.has(term)) {
        seen.add(term);
        df.set(term, (df.get(term) ?? 0) + 1);
      }
    }
  }
  const ceiling = Math.max(limits.minFreq, Math.floor((limits.maxDfShare ?? 0.5) * n));
  const keywords: Keyword[] = [];
  for (const [term, d] of df) {
    if (d < limits.minFreq || d > ceiling) continue;
    const t = tf.get(term) ?? 0;
    const score = t * Math.log(n / (1 + d));
    if (score > 0) keywords.push({ term, score: round(score), df: d, tf: t });
  }
  keywords.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
  return { keywords: keywords.slice(0, limits.maxPerRepo), files: n };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
