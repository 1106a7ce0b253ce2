/** What kind of file a chunk comes from, and how much people searching code want that kind. */
import { stem } from './stem.js';
import { RANKING_RULES } from './ranking-rules.js';

/** People searching code want code: other kinds of file are multiplied down. */
export const FILE_CLASS_FACTORS = { code: 1, declaration: 0.6, test: 0.5, support: 0.6, prose: 0.7, data: 0.5, vendored: 0.3 } as const;
export type FileClass = keyof typeof FILE_CLASS_FACTORS;

const PROSE = new Set(['markdown', 'text', 'rst', 'asciidoc']);
const DATA_EXT = /\.(json|ya?ml|toml|csv|tsv|xml|ini|lock|svg|txt|map|snap)$/i;
const TEST_PATH = /(^|\/)(test|tests|__tests__|spec|specs|testdata|fixtures)\/|\.(test|spec)\.[a-z]+$|_test\.(go|py)$|(^|\/)test_[^/]*\.py$/i;
const SUPPORT_PATH = /(^|\/)(bench|benchmarks?|examples?|samples?)\/|\.bench\.[a-z]+$/i;
const DECLARATION = /\.d\.[cm]?ts$|\.pyi$/i;
const VENDORED = /(^|\/)(node_modules|vendor|third_party|bower_components|dist|build)\/|\.min\.[a-z]+$/i;

export function fileClass(filePath: string | null, language: string | null): FileClass {
  const p = filePath ?? '';
  if (VENDORED.test(p)) return 'vendored';
  if (TEST_PATH.test(p)) return 'test';
  // Benchmarks and examples call the code a question is about; they are rarely its answer.
  if (SUPPORT_PATH.test(p)) return 'support';
  if ((language && PROSE.has(language)) || /\.(md|mdx|rst|adoc)$/i.test(p)) return 'prose';
  if (DATA_EXT.test(p)) return 'data';
  // Type declarations and stubs restate an implementation that lives elsewhere; people want that one.
  if (DECLARATION.test(p)) return 'declaration';
  return 'code';
}

// Words by which a question asks for tests, benchmarks or examples, type declarations, or the
// build by name; then those files are what it wants and lose their down-weighting. Prose is never
// asked for by a word (people searching code want code whatever the wording), only by the form
// of the question (isUsageQuestion).
const CLASS_INTENTS: Array<[FileClass, string[]]> = [
  ['test', ['test', 'tests', 'spec', 'specs', 'fixture', 'fixtures']],
  ['support', ['bench', 'benchmark', 'benchmarks', 'example', 'examples', 'sample', 'samples']],
  ['declaration', ['typescript', 'declaration', 'declarations', 'typings', 'stub', 'stubs']],
  ['vendored', ['build', 'builds', 'vendor', 'vendored', 'bundle', 'bundled', 'generated']],
];

/**
 * A question asked the way a user of a library asks it ("how do I…", "how to…", "what is…",
 * "why…", "can I…") is answered as often by the documentation as by the code; "how does…",
 * "where is…" and bare identifiers ask for the code.
 */
const USAGE_QUESTION = /^\s*(how\s+(do|can|should|would)\s+(i|we|you)\b|how\s+to\b|(can|should)\s+(i|we)\b|what\s+(is|are)\b|why\b|is\s+it\s+possible\b)/i;

export function isUsageQuestion(query: string): boolean {
  return USAGE_QUESTION.test(query);
}

/** The file classes a query asks for by name, given the query's stemmed terms. */
export function classesAskedFor(queryStems: Set<string>, query?: string): Set<FileClass> {
  const asked = new Set<FileClass>();
  for (const [cls, words] of CLASS_INTENTS) {
    if (cls === 'vendored' && !RANKING_RULES.buildIntent) continue;
    if (words.some((w) => queryStems.has(stem(w)))) asked.add(cls);
  }
  if (query !== undefined && RANKING_RULES.proseByQuestionForm && isUsageQuestion(query)) asked.add('prose');
  return asked;
}
