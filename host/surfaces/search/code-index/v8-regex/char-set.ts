/** A set of Unicode code points: sorted, disjoint, non-adjacent inclusive ranges. */
export type CharSet = readonly (readonly [number, number])[];

export const MAX_CODE_POINT = 0x10ffff;

export function charSet(ranges: Iterable<readonly [number, number]>): CharSet {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export const single = (c: number): CharSet => [[c, c]];

export function union(...sets: CharSet[]): CharSet {
  return charSet(sets.flat());
}

export function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export function intersects(a: CharSet, b: CharSet): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]![1] < b[j]![0]) i++;
    else if (b[j]![1] < a[i]![0]) j++;
    else return true;
  }
  return false;
}

export function isSubset(a: CharSet, of: CharSet): boolean {
  return !intersects(a, complement(of));
}

/** RE2's \d, \s (no \v) and \w: ASCII only. */
export const DIGIT = charSet([[0x30, 0x39]]);
export const SPACE = charSet([[0x09, 0x0a], [0x0c, 0x0d], [0x20, 0x20]]);
export const WORD = charSet([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);

const LONG_S = 0x17f; // ſ folds to s in RE2 (simple case folding)
const KELVIN = 0x212a; // K folds to k

/**
 * The set under RE2's case folding (flag i), when it holds only ASCII and the two non-ASCII
 * partners of ASCII letters: a letter gains its other case, and s and k also ſ and K (RE2 folds
 * them together). Undefined when the set holds anything else beyond ASCII: that folding is left to RE2.
 */
export function foldAsciiCase(set: CharSet): CharSet | undefined {
  const beyond = intersection(set, [[0x80, MAX_CODE_POINT]]);
  if (beyond.some(([lo, hi]) => !(lo === hi && (lo === LONG_S || lo === KELVIN)))) return undefined;
  const extra: [number, number][] = [];
  for (const [lo, hi] of set) {
    for (const [from, to, shift] of [[0x41, 0x5a, 0x20], [0x61, 0x7a, -0x20]] as const) {
      const a = Math.max(lo, from);
      const b = Math.min(hi, to);
      if (a <= b) extra.push([a + shift, b + shift]);
    }
  }
  const folded = union(set, extra);
  const orbits: [number, number][] = [];
  if (intersects(folded, charSet([[0x53, 0x53], [0x73, 0x73], [LONG_S, LONG_S]]))) orbits.push([0x53, 0x53], [0x73, 0x73], [LONG_S, LONG_S]);
  if (intersects(folded, charSet([[0x4b, 0x4b], [0x6b, 0x6b], [KELVIN, KELVIN]]))) orbits.push([0x4b, 0x4b], [0x6b, 0x6b], [KELVIN, KELVIN]);
  return union(folded, orbits);
}

function intersection(a: CharSet, b: CharSet): CharSet {
  return complement(union(complement(a), complement(b)));
}

/** The set as a JavaScript character class for the u flag, every code point escaped. */
export function jsClass(set: CharSet): string {
  const hex = (c: number) => `\\u{${c.toString(16)}}`;
  return `[${set.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}
