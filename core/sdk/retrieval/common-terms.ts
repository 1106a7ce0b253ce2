/**
 * Which query terms a backend asks its full-text index for. A term in more than
 * COMMON_TERM_SHARE of the chunks, and in more than COMMON_TERM_MIN_DOCS of them, is left out
 * (its IDF is low and its postings are what makes a query slow); re-scoring still counts it. A
 * query made only of such terms keeps its two rarest. Every backend applying the same rule hands
 * the ranking the same candidates.
 */
export const COMMON_TERM_SHARE = 0.05;
export const COMMON_TERM_MIN_DOCS = 5000;

/** The terms to match, rarest first, from each stemmed query term's document count (`df`) in a collection of `total` chunks. */
export function sparseMatchTerms<T extends { df: number }>(counted: T[], total: number): T[] {
  const found = counted.filter((x) => x.df > 0).sort((a, b) => a.df - b.df);
  const rare = found.filter((x) => x.df / total <= COMMON_TERM_SHARE || x.df <= COMMON_TERM_MIN_DOCS);
  return rare.length ? rare : found.slice(0, 2);
}
