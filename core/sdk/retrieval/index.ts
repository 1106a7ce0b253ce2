/**
 * switchboard/sdk/retrieval: the ranking rules of code search, shared by every retrieval backend.
 * A backend keeps its storage and candidate generation (full-text matches, nearest vectors) and
 * hands the candidates here: re-scoring, rank fusion and per-file diversification, in that order,
 * over terms made by the same code-aware splitting at index and query time.
 */
export type { Candidate, Scored } from './candidate.js';
export { identifierTerms, textTerms, pathTerms, queryTerms, indexTerms, indexPathTerms, stemmedTermSet } from './code-terms.js';
export { stem } from './stem.js';
export { FILE_CLASS_FACTORS, fileClass, classesAskedFor, isUsageQuestion, type FileClass } from './file-class.js';
export { rescoreSparse, nameWords, definitionName, collapseNearDuplicates, WEIGHTS, type RescoreOptions } from './sparse-rescoring.js';
export { fuseRankings, type RankFusionWeights } from './rank-fusion.js';
export { diversifyByFile, FILE_DECAY, MAX_PER_FILE } from './file-diversity.js';
export { RANKING_RULES, type RankingRule } from './ranking-rules.js';
export { sparseMatchTerms, COMMON_TERM_SHARE, COMMON_TERM_MIN_DOCS } from './common-terms.js';
export { cosineTopK, storedVector, vectorBytes, type StoredVector } from './nearest-vectors.js';
export { chunkHit, type ChunkColumns } from './chunk-hit.js';
export { writeSession, type WriteSessionParts } from './write-session.js';
