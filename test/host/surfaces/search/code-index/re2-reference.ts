import { RE2 } from 're2-wasm';
import type { Occurrence } from '../../../../../host/surfaces/search/code-index/text-matcher.js';

const compiled = new Map<string, RE2>();

/**
 * The plain global scan over the whole text, one RE2 call a match (an empty match moves on by one
 * character): what every faster path must equal. re2-wasm counts in code points, so indexes are
 * mapped to UTF-16 units through a table built the obvious way.
 */
export function re2Reference(source: string, caseSensitive: boolean, text: string, max: number): Occurrence[] {
  const flags = `g${caseSensitive ? '' : 'i'}mu`;
  const re = compiled.get(`${flags}/${source}`) ?? new RE2(source, flags);
  compiled.set(`${flags}/${source}`, re); // re2-wasm never frees an expression
  const unitOf: number[] = [];
  let unit = 0;
  for (const c of text) {
    unitOf.push(unit);
    unit += c.length;
  }
  unitOf.push(unit);
  const out: Occurrence[] = [];
  let from = 0; // in code points
  while (out.length < max && from < unitOf.length) {
    re.lastIndex = from;
    const m = re.exec(text);
    if (!m) break;
    out.push({ index: unitOf[m.index]!, length: m[0]!.length });
    from = m.index + Math.max(1, [...m[0]!].length);
  }
  return out;
}
