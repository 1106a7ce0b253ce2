// Words every source file or sentence has: they never discriminate one repository's topics.
const COMMON = new Set(
  (
    'the and for with from that this are was not but you your can has have had all any its into out our then than when what where which who why how ' +
    'const let var function return import export default class extends new this true false null undefined void async await type interface enum ' +
    'public private protected static readonly get set if else for while do switch case break continue try catch finally throw typeof instanceof ' +
    'def self none pass elif lambda yield func package struct impl pub mut use mod fn int str string bool number object any unknown never ' +
    'http https www com org html json js ts mjs cjs md txt'
  ).split(' '),
);

const IDENTIFIER = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Parts of an identifier: `parseHttpHeader` → parse, http, header; `MAX_RETRY` → max, retry. */
export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/\$/g, '_')
    .split(/[_\-]+/)
    .flatMap((part) => part.split(/(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/))
    .map((p) => p.toLowerCase())
    .filter(Boolean);
}

/**
 * The terms of a text for keyword statistics: each identifier lower-cased whole and, when it is
 * compound, its parts too. Digits-only, one- and two-letter and common words are left out.
 */
export function identifierTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(IDENTIFIER)) {
    const whole = match[0];
    const parts = splitIdentifier(whole);
    const candidates = parts.length > 1 ? [whole.toLowerCase(), ...parts] : parts;
    for (const term of candidates) if (keep(term)) terms.push(term);
  }
  return terms;
}

function keep(term: string): boolean {
  return term.length >= 3 && term.length <= 64 && !COMMON.has(term) && !/^[_$]+$/.test(term);
}
