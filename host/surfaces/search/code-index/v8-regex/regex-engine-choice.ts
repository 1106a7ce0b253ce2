import { jsClass } from './char-set.js';
import { linearTimeVerdict } from './linear-time.js';
import { parseRe2Subset, type Assertion, type Item } from './re2-subset.js';

/** Which engine runs a user's regular expression: V8's own (the translated source, flags `gu`) or RE2 (the source as written), and why. */
export type RegexEngineChoice = { engine: 'v8'; source: string } | { engine: 're2'; reason: string };

/**
 * V8's RegExp when the expression is in the subset this module translates exactly and provably
 * runs in linear time on V8's backtracking engine; RE2 (linear for every expression) otherwise.
 * Same matches either way (RE2 syntax and semantics, the m flag): the translation spells out what
 * differs in JavaScript — \d \w \s and \b are ASCII as in RE2, `.` excludes only \n, ^ and $ see only
 * \n, case folding is done in the sets (JavaScript's i flag folds \w and \b too) — and the
 * differential test compares both engines on generated expressions and text.
 */
export function chooseRegexEngine(source: string, caseSensitive: boolean): RegexEngineChoice {
  const items = parseRe2Subset(source, caseSensitive);
  if (!items) return { engine: 're2', reason: 'outside the subset translated exactly to V8' };
  const verdict = linearTimeVerdict(items);
  if (!verdict.linear) return { engine: 're2', reason: verdict.reason };
  const translated = items.map(v8Item).join('');
  try {
    new RegExp(translated, 'gu');
  } catch {
    return { engine: 're2', reason: 'the translation is not a valid JavaScript expression' };
  }
  return { engine: 'v8', source: translated };
}

const ASSERTIONS: Record<Assertion, string> = {
  '^': '(?<![^\\n])',
  $: '(?![^\\n])',
  A: '(?<![^])',
  z: '(?![^])',
  b: '\\b',
  B: '\\B',
};

function v8Item(item: Item): string {
  switch (item.kind) {
    case 'assert':
      return ASSERTIONS[item.at];
    case 'chars': {
      const count = item.min === 1 && item.max === 1 ? '' : `{${item.min},${item.max === Infinity ? '' : item.max}}`;
      return `${jsClass(item.set)}${count}${count && item.lazy ? '?' : ''}`;
    }
    case 'choice': {
      const group = `(?:${item.branches.map((b) => b.map(jsClass).join('')).join('|')})`;
      return item.optional ? `${group}?${item.lazy ? '?' : ''}` : group;
    }
  }
}
