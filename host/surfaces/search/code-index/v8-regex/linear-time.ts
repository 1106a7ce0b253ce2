import { intersects, isSubset, single, union, WORD, type CharSet } from './char-set.js';
import type { Item } from './re2-subset.js';

/** Whether a backtracking engine (V8's) runs the expression in time linear in the text, and if not, why it is left to RE2. */
export type LinearVerdict = { linear: true } | { linear: false; reason: string };

/** Bounds on the constant of the linear time: how often one character of the text can be examined, at most. */
const MAX_CHOICES = 64; // product of the options of every alternative and bounded repetition
const MAX_BOUNDED_REPEAT = 32; // a {n,m} with m above this counts as unbounded
const MAX_FIXED_LENGTH = 256; // characters an attempt reads outside unbounded repetitions
const MAX_WIDTH = 256; // choices x the start positions that can share one run (see below)

/**
 * Decides from the items (re2-subset.ts) whether V8's backtracking engine can only take linear
 * time. V8 tries each start position in turn and, at each, explores alternatives depth first;
 * time goes super-linear when (1) on failure it retries, at every position of a long run, a
 * continuation that itself runs long (`(a+)+`, `\w*\w*x`), or (2) many start positions enter the
 * same run and each scans it again (`\s+$` on a long run of spaces). So, conservatively:
 * - repeated groups hold only fixed strings (the parser refuses anything else), alternatives are
 *   fixed strings, and choices (alternatives, `?` and bounded repetitions) multiply to at most 64;
 * - an unbounded repetition of a set C is either followed by something that always succeeds, or
 *   (a) what follows cannot start with a character of C (each retry fails at once), or (b) what
 *   follows holds no unbounded repetition (each retry reads a bounded number of characters);
 * - and it is entered after a barrier: a fixed character outside C, a line start (with \n not in
 *   C), \A, or \b before word characters (with C of word characters), at most d fixed characters
 *   before it. Then two attempts inside the repetition at one position entered it at most d
 *   positions apart (the later one's barrier would lie inside the earlier one's run), so each
 *   character is read by at most (d + 1) x choices attempts.
 */
export function linearTimeVerdict(items: Item[]): LinearVerdict {
  let choices = 1;
  let fixedLength = 0;
  for (const item of items) {
    if (item.kind === 'choice') {
      choices *= item.branches.length + (item.optional ? 1 : 0);
      fixedLength += Math.max(...item.branches.map((b) => b.length));
    } else if (item.kind === 'chars' && item.max <= MAX_BOUNDED_REPEAT) {
      choices *= item.max - item.min + 1;
      fixedLength += item.max;
    } else if (item.kind === 'chars') fixedLength += item.min;
  }
  if (choices > MAX_CHOICES) return { linear: false, reason: `${choices} combinations of alternatives and repetition counts (at most ${MAX_CHOICES})` };
  if (fixedLength > MAX_FIXED_LENGTH) return { linear: false, reason: `an attempt reads up to ${fixedLength} characters besides repetitions (at most ${MAX_FIXED_LENGTH})` };
  let width = choices;
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (!isUnbounded(item)) continue;
    const rest = items.slice(i + 1);
    if (alwaysSucceeds(rest)) continue;
    const retryFailsAtOnce = !intersects(item.set, firstSet(rest));
    if (!retryFailsAtOnce && rest.some(isUnbounded)) {
      return { linear: false, reason: `the repetition at item ${i + 1} can give back characters that what follows also matches, and what follows repeats without bound` };
    }
    const d = barrierDistance(items, i);
    if (d === undefined) return { linear: false, reason: `the repetition at item ${i + 1} can be entered from every position of a run (no character outside its set, line start or \\b before it)` };
    width *= d + 1;
  }
  if (width > MAX_WIDTH) return { linear: false, reason: `up to ${width} attempts can read one character (at most ${MAX_WIDTH})` };
  return { linear: true };
}

function isUnbounded(item: Item): item is Extract<Item, { kind: 'chars' }> {
  return item.kind === 'chars' && item.max > MAX_BOUNDED_REPEAT && item.max > item.min;
}

/** Nothing in items can fail: each item may match nothing, and none is an assertion. */
function alwaysSucceeds(items: Item[]): boolean {
  return items.every((it) => (it.kind === 'chars' ? it.min === 0 : it.kind === 'choice' && (it.optional || it.branches.some((b) => !b.length))));
}

/** The characters items can consume first (assertions are looked through). */
function firstSet(items: Item[]): CharSet {
  const sets: CharSet[] = [];
  for (const it of items) {
    if (it.kind === 'assert') continue;
    if (it.kind === 'chars') {
      if (it.max > 0) sets.push(it.set);
      if (it.min > 0) break;
      continue;
    }
    sets.push(...it.branches.flatMap((b) => b.slice(0, 1)));
    if (!it.optional && it.branches.every((b) => b.length)) break;
  }
  return union(...sets);
}

/** How many fixed characters lie between the repetition at index i and the nearest barrier before it; undefined when none does. */
function barrierDistance(items: Item[], i: number): number | undefined {
  const loop = items[i] as Extract<Item, { kind: 'chars' }>;
  let d = 0;
  // The set of the character just after the point reached walking back, when it is known.
  let after: CharSet | undefined = loop.min > 0 ? loop.set : undefined;
  for (let j = i - 1; j >= 0; j--) {
    const it = items[j]!;
    if (it.kind === 'chars' && it.min === it.max) {
      if (it.min > 0 && !intersects(it.set, loop.set)) return d;
      d += it.min;
      if (it.min > 0) after = it.set;
      continue;
    }
    if (it.kind === 'assert') {
      if (it.at === 'A') return d;
      if (it.at === '^' && !intersects(loop.set, single(0x0a))) return d;
      if (it.at === 'b' && after && isSubset(after, WORD) && isSubset(loop.set, WORD)) return d;
      continue;
    }
    return undefined; // a choice or another repetition: the entry points are not pinned
  }
  return undefined;
}
