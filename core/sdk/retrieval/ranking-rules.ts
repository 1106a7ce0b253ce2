/**
 * The ranking rules that can be switched off one at a time, all on by default. Only the
 * golden-set bench (bench/golden-sets.bench.ts) turns them off, to measure each rule's effect per
 * set and to choose rules leave-one-set-out; docs/search/code-search.md gives the figures.
 */
export const RANKING_RULES = {
  /** Tests, prose, data, declarations and vendored files multiplied down (file-class.ts). */
  fileClass: true,
  /** Share of the query's terms in the file's path. */
  pathTerms: true,
  /** Share of the query's terms in the file name. */
  nameTerms: true,
  /** Share of the query's terms in the chunk's definition name. */
  symbol: true,
  /** The chunk defines a name the query spells out (`flush`, `setLevel`, `raise_for_status`). */
  definitionNamed: true,
  /** Share of the file name's words the query names. */
  named: true,
  /** Share of the query's terms across all the file's chunks (whole-file evidence). */
  fileEvidence: true,
  /** A how-to question ("how do I", "what is", "why") lifts prose to code's weight (file-class.ts). */
  proseByQuestionForm: true,
  /** A query naming the build ("during the build", "vendored") lifts build/ and vendored files to code's weight. */
  buildIntent: true,
  /** Chunks of different files with nearly the same words count once, for the more focused file. */
  nearDuplicates: true,
  /** Later chunks of a file decay, at most MAX_PER_FILE per file. */
  fileDiversity: true,
};

export type RankingRule = keyof typeof RANKING_RULES;
