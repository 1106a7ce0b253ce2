import type { RetrievalFusion } from '../contracts/retrieval.js';
import type { Candidate, Scored } from './candidate.js';
import { FILE_CLASS_FACTORS, fileClass } from './file-class.js';

/** The weights of a fusion; the candidate counts of RetrievalFusion are the backend's business. */
export type RankFusionWeights = Pick<RetrievalFusion, 'kDiv' | 'sparseWeight' | 'denseWeight'>;

/**
 * Weighted reciprocal rank fusion of the sparse ranking (after re-scoring) and the dense one,
 * over the same row ids: score = sparseWeight / (k + sparseRank) + denseWeight / (k + denseRank).
 */
export function fuseRankings(sparse: Scored[], dense: Candidate[], fusion: RankFusionWeights): Scored[] {
  const byRow = new Map<number, Scored>();
  sparse.forEach((s, i) => {
    byRow.set(s.rowid, { ...s, signals: { ...s.signals, sparse_rank: i + 1, sparse_score: s.score }, score: fusion.sparseWeight / (fusion.kDiv + i + 1) });
  });
  dense.forEach((d, i) => {
    // The sparse rank already carries the file-class factor; the dense part gets it here, so
    // code still ranks over prose when meaning, not words, found them.
    const factor = FILE_CLASS_FACTORS[fileClass(d.path, d.language)];
    const part = (fusion.denseWeight / (fusion.kDiv + i + 1)) * factor;
    const hit = byRow.get(d.rowid);
    if (hit) {
      hit.score += part;
      hit.signals.dense_rank = i + 1;
      hit.signals.cosine = d.cosine ?? 0;
    } else {
      byRow.set(d.rowid, { ...d, score: part, signals: { dense_rank: i + 1, cosine: d.cosine ?? 0, class: factor } });
    }
  });
  return [...byRow.values()].sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}
