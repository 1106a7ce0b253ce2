/**
 * Re-scoring of a store's full-text candidates with signals BM25 cannot express: how much of the
 * query the chunk, its path, file name and symbol hold, what kind of file it is, the query's
 * keywords, and what the file's chunks answer together (docs/search/code-search.md explains each).
 */
import type { RetrievalSearchOptions } from '../contracts/retrieval.js';
import type { Candidate, Scored } from './candidate.js';
import { identifierTerms, pathTerms, stemmedTermSet } from './code-terms.js';
import { FILE_CLASS_FACTORS, classesAskedFor, fileClass } from './file-class.js';
import { stem } from './stem.js';
import { RANKING_RULES as RULES } from './ranking-rules.js';

export interface RescoreOptions {
  /** The query's terms as queryTerms() gives them (unstemmed). */
  terms: string[];
  /** Terms that multiply a hit's score by `factor` when present (discriminative keywords). */
  boostTerms?: RetrievalSearchOptions['boostTerms'];
  /** The query as typed: its form ("how do I…") decides how much prose weighs. */
  query?: string;
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
  /** The chunk's definition is named whole by the query (`flush`, `setLevel`). */
  defined: 0.15,
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

/** A definition's own name as one lowercase word: `Session.send` → send, `set_level` → setlevel. */
export function definitionName(symbol: string): string {
  const last = symbol.slice(symbol.lastIndexOf('.') + 1);
  // identifierTerms gives the parts, then the whole word when there are several.
  return identifierTerms(last).at(-1) ?? '';
}

function coverage(wanted: Set<string>, have: Set<string>): number {
  if (!wanted.size) return 0;
  let n = 0;
  for (const t of wanted) if (have.has(t)) n++;
  return n / wanted.size;
}

/** Share of a file name's words the query names, whole or abbreviated: `sync` begins "synchron", `desc` "descriptor". */
function namedShare(words: Set<string>, wanted: Set<string>): number {
  if (!words.size) return 0;
  const wantedList = [...wanted];
  let n = 0;
  for (const w of words) if (wanted.has(w) || (w.length >= 3 && wantedList.some((t) => t.length > w.length && t.startsWith(w)))) n++;
  return n / words.size;
}

const stems = (terms: string[]) => new Set(terms.map(stem));

/** Sparse score of every candidate, best first. */
export function rescoreSparse(candidates: Candidate[], options: RescoreOptions): Scored[] {
  const wanted = stems(options.terms);
  // A keyword boosts only when the query asks for it: a repository's keywords are in most of its
  // chunks, so "the chunk holds a keyword" alone would lift everything alike.
  const asked = options.boostTerms?.terms.length ? [...stems(options.boostTerms.terms)].filter((t) => wanted.has(t)) : [];
  const boost = asked.length ? { terms: new Set(asked), factor: options.boostTerms!.factor } : undefined;
  const maxBm25 = Math.max(1e-9, ...candidates.map((c) => c.bm25));
  const matched = new Map<number, string[]>();
  const intents = classesAskedFor(wanted, options.query);
  const scored = candidates.map((c): Scored => {
    const pathSet = stems(c.path ? pathTerms(c.path) : []);
    const name = c.path ? c.path.slice(c.path.lastIndexOf('/') + 1) : '';
    const nameSet = stems(pathTerms(name));
    const symbolSet = c.symbol ? stemmedTermSet(c.symbol) : new Set<string>();
    const bodySet = stemmedTermSet(c.text);
    const all = new Set([...pathSet, ...symbolSet, ...bodySet]);
    const cls = fileClass(c.path, c.language);
    const words = stems(nameWords(name));
    const signals: Record<string, number> = {
      bm25: c.bm25 / maxBm25,
      coverage: coverage(wanted, all),
      path: coverage(wanted, pathSet),
      name: coverage(wanted, nameSet),
      symbol: coverage(wanted, symbolSet),
      named: RULES.nameAbbreviations ? namedShare(words, wanted) : coverage(words, wanted),
      defined: c.symbol && wanted.has(stem(definitionName(c.symbol))) ? 1 : 0,
      class: intents.has(cls) || !RULES.fileClass ? 1 : FILE_CLASS_FACTORS[cls],
    };
    let score =
      WEIGHTS.bm25 * signals.bm25! +
      WEIGHTS.coverage * signals.coverage! +
      (RULES.pathTerms ? WEIGHTS.path * signals.path! : 0) +
      (RULES.nameTerms ? WEIGHTS.name * signals.name! : 0) +
      (RULES.symbol ? WEIGHTS.symbol * signals.symbol! : 0) +
      (RULES.named ? WEIGHTS.named * signals.named! : 0) +
      (RULES.definitionNamed ? WEIGHTS.defined * signals.defined! : 0);
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
    if (RULES.fileEvidence) c.score += WEIGHTS.file * fileCoverage * c.signals.class! * (c.signals.keyword_boost ?? 1);
  }
  scored.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  const collapsed = RULES.sameDocument ? collapseSameDocument(scored) : scored;
  return RULES.nearDuplicates ? collapseNearDuplicates(collapsed) : collapsed;
}

/** A file's name without its extension, lowercased: `npm-ci.md`, `npm-ci.html`, `npm-ci.1` → npm-ci. */
function documentName(filePath: string): { base: string; ext: string } {
  const name = filePath.slice(filePath.lastIndexOf('/') + 1).toLowerCase();
  const dot = name.lastIndexOf('.');
  return dot > 0 ? { base: name.slice(0, dot), ext: name.slice(dot + 1) } : { base: name, ext: '' };
}

/**
 * One document published in several formats (Markdown source, its HTML and man page renderings)
 * is one answer: only the best-ranked of prose files sharing a name but not an extension stays.
 */
export function collapseSameDocument(ranked: Scored[]): Scored[] {
  const kept = new Map<string, string>();
  return ranked.filter((c) => {
    if (!c.path || fileClass(c.path, c.language) !== 'prose') return true;
    const { base, ext } = documentName(c.path);
    const first = kept.get(base);
    if (first === undefined) {
      kept.set(base, c.path);
      return true;
    }
    return first === c.path || documentName(first).ext === ext;
  });
}

/** Chunks compared for near-duplicates: the best this many (pairwise, so kept small). */
const DUPLICATE_WINDOW = 40;
/** Shared share of distinct terms (Jaccard) from which two chunks say the same thing. */
const DUPLICATE_JACCARD = 0.9;

/**
 * The same text in two files (a rule's page and the page of all rules, a copied README, a
 * vendored copy) is one answer: the chunk of the more focused file (fewer chunks among the
 * candidates) stays with the better score of the two, the other leaves the ranking.
 */
export function collapseNearDuplicates(ranked: Scored[]): Scored[] {
  const perFile = new Map<string, number>();
  for (const c of ranked) perFile.set(c.path ?? c.id, (perFile.get(c.path ?? c.id) ?? 0) + 1);
  const head = ranked.slice(0, DUPLICATE_WINDOW).map((c) => ({ c, terms: stemmedTermSet(c.text) }));
  const dropped = new Set<number>();
  for (let i = 0; i < head.length; i++) {
    const a = head[i]!;
    if (dropped.has(a.c.rowid) || a.terms.size < 8) continue;
    for (let j = i + 1; j < head.length; j++) {
      const b = head[j]!;
      if (dropped.has(b.c.rowid) || (a.c.path ?? a.c.id) === (b.c.path ?? b.c.id)) continue;
      let shared = 0;
      for (const t of b.terms) if (a.terms.has(t)) shared++;
      if (shared / (a.terms.size + b.terms.size - shared) < DUPLICATE_JACCARD) continue;
      const focusedB = 2 * perFile.get(b.c.path ?? b.c.id)! <= perFile.get(a.c.path ?? a.c.id)!;
      const [keep, drop] = focusedB ? [b, a] : [a, b];
      keep.c.score = Math.max(keep.c.score, drop.c.score);
      keep.c.signals.near_duplicates = (keep.c.signals.near_duplicates ?? 0) + 1;
      dropped.add(drop.c.rowid);
      if (drop === a) break;
    }
  }
  if (!dropped.size) return ranked;
  return ranked.filter((c) => !dropped.has(c.rowid)).sort((a, b) => b.score - a.score || a.rowid - b.rowid);
}
