import { newRE2 } from '../query/re2-engine.js';

/** A global expression as text-matcher drives it: lastIndex and match indexes in UTF-16 code units, as JavaScript's. */
export interface Exec {
  lastIndex: number;
  exec(text: string): (Array<string | undefined> & { index: number }) | null;
}

const SURROGATE = /[\ud800-\udfff]/;
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

/**
 * An RE2 expression whose lastIndex and match index are UTF-16 code units. re2-wasm counts both in
 * code points, so after an astral character (an emoji) its offsets were short by one per such
 * character; text without surrogates needs no conversion.
 */
export function re2InUtf16(source: string, flags: string): Exec {
  const re = newRE2(source, flags) as unknown as Exec;
  return {
    lastIndex: 0,
    exec(text: string) {
      if (!SURROGATE.test(text)) {
        re.lastIndex = this.lastIndex;
        const m = re.exec(text);
        this.lastIndex = re.lastIndex;
        return m;
      }
      const pairs = pairIndexes(text);
      re.lastIndex = this.lastIndex - pairs.filter((p) => p < this.lastIndex - 1).length;
      const m = re.exec(text);
      if (m) {
        // The code point index plus one unit for each pair before it.
        let index = m.index;
        for (const p of pairs) if (p < index) index++;
        m.index = index;
        this.lastIndex = index + m[0]!.length;
      } else this.lastIndex = 0;
      return m;
    },
  };
}

/** UTF-16 indexes of the surrogate pairs in text. */
function pairIndexes(text: string): number[] {
  const out: number[] = [];
  PAIR.lastIndex = 0;
  for (let m = PAIR.exec(text); m; m = PAIR.exec(text)) out.push(m.index);
  return out;
}
