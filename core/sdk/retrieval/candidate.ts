/** A chunk a backend's candidate generation found (full-text match, nearest vectors or both). */
export interface Candidate {
  /**
   * The backend's stable number for the chunk (SQLite's rowid): the sparse and dense rankings are
   * joined on it, and equal scores go to the lower one, so a ranking never depends on Map order.
   */
  rowid: number;
  id: string;
  path: string | null;
  symbol: string | null;
  language: string | null;
  text: string;
  /** The store's BM25 as a positive number (higher is better); 0 when only the dense side found it. */
  bm25: number;
  /** Cosine similarity to the query vector, when there is one. */
  cosine?: number;
}

/** A candidate with its score and the per-signal figures behind it (a hit's `signals`, for traces). */
export interface Scored extends Candidate {
  score: number;
  signals: Record<string, number>;
}
