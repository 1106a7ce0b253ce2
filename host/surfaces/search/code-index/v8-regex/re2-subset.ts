import { complement, DIGIT, foldAsciiCase, single, SPACE, union, WORD, type CharSet } from './char-set.js';

/** One step of an expression in the subset: a character set repeated min to max times, a zero-width assertion, or a choice of fixed strings. */
export type Item =
  | { kind: 'chars'; set: CharSet; min: number; max: number; lazy: boolean }
  | { kind: 'assert'; at: Assertion }
  | { kind: 'choice'; branches: CharSet[][]; optional: boolean; lazy: boolean };

/** ^ and $ at line ends (the m flag), \A and \z at the text's ends, \b and \B at ASCII word boundaries. */
export type Assertion = '^' | '$' | 'A' | 'z' | 'b' | 'B';

class Unsupported extends Error {}

function unsupported(): never {
  throw new Unsupported();
}

/**
 * An RE2 expression (already valid RE2) as a flat list of items, with case folding applied to the
 * sets, or undefined when it uses anything outside the subset this parser knows exactly:
 * Unicode classes (\pL), POSIX classes, \Q…\E, \C, octal, inline flags other than a leading (?i),
 * a quantified group other than `(…)?` over fixed strings, alternatives that are not fixed
 * strings, and case folding of anything beyond ASCII.
 */
export function parseRe2Subset(source: string, caseSensitive: boolean): Item[] | undefined {
  const fold = !caseSensitive || source.startsWith('(?i)');
  const parser = new Parser(source, fold, source.startsWith('(?i)') ? 4 : 0);
  try {
    const branches = parser.alternation();
    if (parser.i < source.length) return undefined; // an unmatched ')'
    if (branches.length === 1) return branches[0];
    return [{ kind: 'choice', branches: branches.map(fixedString), optional: false, lazy: false }];
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  }
}

/** The sets of a branch made only of single characters, or unsupported. */
function fixedString(items: Item[]): CharSet[] {
  return items.flatMap((item) => {
    if (item.kind !== 'chars' || item.min !== item.max || item.min > 32) unsupported();
    return Array.from({ length: item.min }, () => item.set);
  });
}

class Parser {
  constructor(readonly source: string, readonly fold: boolean, public i: number) {}

  private peek(offset = 0): string | undefined {
    return this.source[this.i + offset];
  }

  /** The code point at i, consumed. */
  private next(): number {
    const c = this.source.codePointAt(this.i);
    if (c === undefined) unsupported();
    this.i += c > 0xffff ? 2 : 1;
    return c;
  }

  alternation(): Item[][] {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.i++;
      branches.push(this.sequence());
    }
    return branches;
  }

  private sequence(): Item[] {
    const items: Item[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      if (c === '(') {
        items.push(...this.group());
        continue;
      }
      const atom = this.atom();
      if ('at' in atom) {
        if (this.repetition()) unsupported();
        items.push({ kind: 'assert', at: atom.at });
        continue;
      }
      const rep = this.repetition() ?? { min: 1, max: 1, lazy: false };
      items.push({ kind: 'chars', set: atom.set, ...rep });
    }
    return items;
  }

  /** A group: its items in place when it is neither quantified nor an alternation, else one choice of fixed strings. */
  private group(): Item[] {
    this.i++;
    if (this.peek() === '?') {
      const named = /^\?(?:P?<[A-Za-z_][A-Za-z0-9_]*>|:)/.exec(this.source.slice(this.i));
      if (!named) unsupported(); // inline flags
      this.i += named[0].length;
    }
    const branches = this.alternation();
    if (this.peek() !== ')') unsupported();
    this.i++;
    const rep = this.repetition();
    if (!rep && branches.length === 1) return branches[0]!;
    if (rep && (rep.min !== 0 || rep.max !== 1)) unsupported();
    return [{ kind: 'choice', branches: branches.map(fixedString), optional: rep !== undefined, lazy: rep?.lazy ?? false }];
  }

  /** `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally lazy; undefined when none follows. */
  private repetition(): { min: number; max: number; lazy: boolean } | undefined {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      [min, max] = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.i));
      if (!counted) return undefined;
      this.i += counted[0].length;
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] ? Number(counted[3]) : Infinity;
    }
    const lazy = this.peek() === '?';
    if (lazy) this.i++;
    if (/^[*+?]|^\{\d+(,\d*)?\}/.test(this.source.slice(this.i))) unsupported(); // RE2 refuses a repeated repetition
    return { min, max, lazy };
  }

  private atom(): { set: CharSet } | { at: Assertion } {
    const c = this.next();
    switch (String.fromCodePoint(c)) {
      case '.':
        return { set: complement(single(0x0a)) };
      case '^':
        return { at: '^' };
      case '$':
        return { at: '$' };
      case '[':
        return { set: this.charClass() };
      case '\\':
        return this.escape(false);
      case '*':
      case '+':
      case '?':
        return unsupported();
      case '{':
        if (/^\d+(,\d*)?\}/.test(this.source.slice(this.i))) unsupported(); // a repetition of nothing
        return { set: this.literal(c) };
      default:
        return { set: this.literal(c) }; // a lone ] or } is literal in RE2
    }
  }

  private literal(c: number): CharSet {
    return this.folded(single(c));
  }

  private folded(set: CharSet): CharSet {
    if (!this.fold) return set;
    return foldAsciiCase(set) ?? unsupported();
  }

  /** After `\`: a class escape (\d \w \s and negations, folded as RE2 does: the positive set folded, then negated), an assertion, or one character. */
  private escape(inClass: boolean): { set: CharSet } | { at: Assertion } {
    const e = this.peek();
    if (e === undefined) unsupported();
    this.i++;
    const classes: Record<string, CharSet> = { d: DIGIT, s: SPACE, w: WORD };
    if (classes[e.toLowerCase()] && /[dswDSW]/.test(e)) {
      const set = this.folded(classes[e.toLowerCase()]!);
      return { set: e === e.toUpperCase() ? complement(set) : set };
    }
    if ('bBAz'.includes(e)) {
      if (inClass) unsupported();
      return { at: e as Assertion };
    }
    const controls: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, a: 7 };
    if (controls[e] !== undefined) return { set: single(controls[e]) };
    if (e === 'x') {
      const hex = /^(?:\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/.exec(this.source.slice(this.i)) ?? unsupported();
      this.i += hex[0].length;
      const code = parseInt(hex[1] ?? hex[2]!, 16);
      if (code > 0x10ffff) unsupported();
      return { set: inClass ? single(code) : this.literal(code) };
    }
    if (/[\x21-\x7e]/.test(e) && !/[A-Za-z0-9]/.test(e)) return { set: inClass ? single(e.codePointAt(0)!) : this.literal(e.codePointAt(0)!) };
    return unsupported(); // \p \P \Q \C octal, and anything else
  }

  /** After `[`: the class's set, its positive part folded before a `^` negates it (as RE2 does). */
  private charClass(): CharSet {
    const negated = this.peek() === '^';
    if (negated) this.i++;
    const parts: CharSet[] = [];
    for (let first = true; ; first = false) {
      const c = this.peek();
      if (c === undefined) unsupported();
      if (c === ']' && !first) {
        this.i++;
        break;
      }
      if (c === '[' && this.peek(1) === ':') unsupported(); // POSIX classes
      const from = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++;
        const to = this.classAtom();
        if (typeof from !== 'number' || typeof to !== 'number' || to < from) unsupported();
        parts.push([[from, to]]);
      } else parts.push(typeof from === 'number' ? single(from) : from);
    }
    const set = this.folded(union(...parts));
    return negated ? complement(set) : set;
  }

  /** One character of a class (its code point) or a class escape's set. */
  private classAtom(): number | CharSet {
    if (this.peek() !== '\\') return this.next();
    this.i++;
    const escaped = this.escape(true);
    if (!('set' in escaped)) unsupported();
    const set = escaped.set;
    // A single character escape (\n, \x41, \.) folded to one code point stays a range end.
    const one = set.length === 1 && set[0]![0] === set[0]![1];
    return one ? set[0]![0] : set;
  }
}
