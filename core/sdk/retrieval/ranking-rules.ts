/**
 * The ranking rules, each switchable so its effect can be measured. A rule is on when the golden
 * sets showed it helps (docs/search/code-search.md gives each rule's effect per set); those off
 * were measured to hurt more sets than they help and stay for measurement only. Only
 * bench/golden-sets.bench.ts flips them.
 */
export const RANKING_RULES = {
  /** Tests, prose, data, declarations and vendored files multiplied down (file-class.ts). */
  fileClass: true,
  /** Share of the query's terms in the file's path. */
  pathTerms: true,
  /** Share of the query's terms in the file name. */
  nameTerms: false,
  /** Share of the query's terms in the chunk's definition name. */
  symbol: true,
  /** The chunk defines a name the query spells out (`flush`, `setLevel`, `raise_for_status`). */
  definitionNamed: false,
  /** Share of the file name's words the query names. */
  named: true,
  /** Share of the query's terms across all the file's chunks (whole-file evidence). */
  fileEvidence: false,
  /** A how-to question ("how do I", "what is", "why") lifts prose to code's weight (file-class.ts). */
  proseByQuestionForm: true,
  /** A query naming the build ("during the build", "vendored") lifts build/ and vendored files to code's weight. */
  buildIntent: true,
  /** Chunks of different files with nearly the same words count once, for the more focused file. */
  nearDuplicates: false,
  /** A file-name word that begins a query word counts as named (`sync` for "synchronous", `desc` for "descriptor"). */
  nameAbbreviations: false,
  /** Prose files with the same name and different extensions (one document as Markdown, HTML, man page) count once. */
  sameDocument: false,
  /** Later chunks of a file decay, at most MAX_PER_FILE per file. */
  fileDiversity: true,
};

export type RankingRule = keyof typeof RANKING_RULES;
