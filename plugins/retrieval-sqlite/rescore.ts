/**
 * Every ranking rule of code search, in one place (docs/code-search.md explains each).
 *
 * FTS5 finds candidates with its BM25 (fixed k1 = 1.2, b = 0.75, column weights symbol 6, path 3,
 * body 1); this file re-scores them with signals FTS5 cannot express, fuses a dense ranking when
 * the host sent a query vector, and keeps one file from crowding out the others.
 */
import { identifierTerms, pathTerms, stem, stemmedTermSet } from './terms.js';

export interface Candidate {
  rowid: number;
  id: string;
  path: string | null;
  symbol: string | null;
  language: string | null;
  text: string;
  /** FTS5's bm25 as a positive number (higher is better); 0 when only the dense side found it. */
  bm25: number;
  /** Cosine similarity to the query vector, when there is one. */
  cosine?: number;
}

export interface Scored extends Candidate {
  score: number;
  signals: Record<string, number>;
}

export interface RescoreOptions {
  /** The query's terms as queryTerms() gives them (unstemmed). */
  terms: string[];
  /** Terms that multiply a hit's score by `factor` when present (discriminative keywords). */
  boostTerms?: { terms: string[]; factor: number };
  /** Dense ranking to fuse (weighted reciprocal rank fusion over the same row ids). */
  fusion?: { kDiv: number; sparseWeight: number; denseWeight: number };
}

/** Weights of the sparse score's signals. */
export const WEIGHTS = {
  bm25: 0.35,
  /** Share of the query's terms found anywhere in the chunk (symbol, path, body). */
  coverage: 0.35,
  /** Share of the query's terms in the file's path (directories and name). */
  path: 0.15,
  /** Share of the query's terms in the file name alone. */
  name: 0.15,
  /** Share of the query's terms in the chunk's symbol (the definition's name). */
  symbol: 0.2,
  /** Share of the file name's words the query names: "reload queue" for reload-queue.ts is 1. */
  named: 0.1,
  /** Share of the query's terms found across all the file's candidate chunks together. */
  file: 0.15,
};

// File names that say nothing about what a file holds.
const GENERIC_NAMES = new Set(['index', 'main', 'mod', 'init', '__init__']);

/** The words of a file name without its extension: `reload-queue.ts` → reload, queue. */
export function nameWords(fileName: string): string[] {
  const base = fileName.replace(/\.[^.]*$/, '').replace(/\.(d|test|spec|bench)$/i, '');
  if (GENERIC_NAMES.has(base.toLowerCase())) return [];
  return base.split(/[^A-Za-z0-9]+/).flatMap((w) => {
    const parts = identifierTerms(w);
    return parts.length > 1 ? parts.slice(0, -1) : parts;
  });
}

/** People searching code want code: other kinds of file are multiplied down. */
export const FILE_CLASS_FACTORS = { code: 1, declaration: 0.6, test: 0.5, support: 0.6, prose: 0.6, data: 0.5, vendored: 0.3 } as const;
export type FileClass = keyof typeof FILE_CLASS_FACTORS;

/** The n-th chunk (0-based) of a file in the ranking counts FILE_DECAY^n; at most MAX_PER_FILE are returned. */
export const FILE_DECAY = 0.5;
export const MAX_PER_FILE = 3;

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

function coverage(wanted: Set<string>, have: Set<string>): number {
  if (!wanted.size) return 0;
  let n = 0;
  for (const t of wanted) if (have.has(t)) n++;
  return n / wanted.size;
}

const stems = (terms: string[]) => new Set(terms.map(stem));

// Words by which a question asks for tests, benchmarks or examples, or type declarations by name;
// then those files are what it wants and lose their down-weighting. Prose never does: people
// searching code want code whatever the wording.
const CLASS_INTENTS: Array<[FileClass, string[]]> = [
  ['test', ['test', 'tests', 'spec', 'specs', 'fixture', 'fixtures']],
  ['support', ['bench', 'benchmark', 'benchmarks', 'example', 'examples', 'sample', 'samples']],
  ['declaration', ['typescript', 'declaration', 'declarations', 'typings', 'stub', 'stubs']],
];

function classesAskedFor(wanted: Set<string>): Set<FileClass> {
  const asked = new Set<FileClass>();
  for (const [cls, words] of CLASS_INTENTS) if (words.some((w) => wanted.has(stem(w)))) asked.add(cls);
  return asked;
}

/** Sparse score of every candidate, best first. */
export function rescoreSparse(candidates: Candidate[], options: RescoreOptions): Scored[] {
  const wanted = stems(options.terms);
  // A keyword boosts only when the query asks for it: a repository's keywords are in most of its
  // chunks, so "the chunk holds a keyword" alone would lift everything alike.
  const asked = options.boostTerms?.terms.length ? [...stems(options.boostTerms.terms)].filter((t) => wanted.has(t)) : [];
  const boost = asked.length ? { terms: new Set(asked), factor: options.boostTerms!.factor } : undefined;
  const maxBm25 = Math.max(1e-9, ...candidates.map((c) => c.bm25));
  const matched = new Map<number, string[]>();
  const intents = classesAskedFor(wanted);
  const scored = candidates.map((c): Scored => {
    const pathSet = stems(c.path ? pathTerms(c.path) : []);
    const name = c.path ? c.path.slice(c.path.lastIndexOf('/') + 1) : '';
    const nameSet = stems(pathTerms(name));
    const symbolSet = c.symbol ? stemmedTermSet(c.symbol) : new Set<string>();
    const bodySet = stemmedTermSet(c.text);
    const all = new Set([...pathSet, ...symbolSet, ...bodySet]);
    const cls = fileClass(c.path, c.language);
    const signals: Record<string, number> = {
      bm25: c.bm25 / maxBm25,
      coverage: coverage(wanted, all),
      path: coverage(wanted, pathSet),
      name: coverage(wanted, nameSet),
      symbol: coverage(wanted, symbolSet),
      named: coverage(stems(nameWords(name)), wanted),
      class: intents.has(cls) ? 1 : FILE_CLASS_FACTORS[cls],
    };
    let score =
      WEIGHTS.bm25 * signals.bm25! +
      WEIGHTS.coverage * signals.coverage! +
      WEIGHTS.path * signals.path! +
      WEIGHTS.name * signals.name! +
      WEIGHTS.symbol * signals.symbol! +
      WEIGHTS.named * signals.named!;
    score *= signals.class!;
    if (boost && [...boost.terms].some((t) => all.has(t))) {
      signals.keyword_boost = boost.factor;
      score *= boost.factor;
    }
    matched.set(c.rowid, [...wanted].filter((t) => all.has(t)));
    return { ...c, score, signals };
  });
  // A file is judged by its chunks together too: one answering half the question and another
  // the other half make a better file than either chunk alone says.
  const byFile = new Map<string, Set<string>>();
  for (const c of scored) {
    const key = c.path ?? c.id;
    const set = byFile.get(key) ?? new Set<string>();
    for (const t of matched.get(c.rowid) ?? []) set.add(t);
    byFile.set(key, set);
  }
  for (const c of scored) {
    const fileCoverage = wanted.size ? byFile.get(c.path ?? c.id)!.size / wanted.size : 0;
    c.signals.file = fileCoverage;
    c.score += WEIGHTS.file * fileCoverage * c.signals.class! * (c.signals.keyword_boost ?? 1);
  }
  return scored.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}

/**
 * Weighted reciprocal rank fusion of the sparse ranking (after re-scoring) and the dense one,
 * over the same row ids: score = sparseWeight / (k + sparseRank) + denseWeight / (k + denseRank).
 */
export function fuse(sparse: Scored[], dense: Candidate[], fusion: NonNullable<RescoreOptions['fusion']>): Scored[] {
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

/** One file does not crowd out the others: later chunks of a file decay and at most MAX_PER_FILE stay. */
export function diversify(ranked: Scored[], topK: number): Scored[] {
  const seen = new Map<string, number>();
  const decayed = ranked.map((r) => {
    const key = r.path ?? r.id;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return { r, n, score: r.score * FILE_DECAY ** n };
  });
  return decayed
    .filter((d) => d.n < MAX_PER_FILE)
    .sort((a, b) => b.score - a.score || a.r.rowid - b.r.rowid)
    .slice(0, topK)
    .map((d) => ({ ...d.r, score: d.score, signals: d.n ? { ...d.r.signals, file_decay: FILE_DECAY ** d.n } : d.r.signals }));
}
