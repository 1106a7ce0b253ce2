const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** JSON_MAX_DEPTH's default, for an API built without the configuration. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

/**
 * Whether a JSON text nests arrays and objects deeper than `maxDepth`, read from its bytes
 * before any parse: a hostile body is refused without building its object graph. Strings are
 * skipped whole (a base64 document costs a few indexOf calls), so brackets inside them do not count.
 */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      i = closingQuote(bytes, i + 1);
      if (i < 0) return false; // an unterminated string: JSON.parse refuses it
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

/** The index of the quote that ends a string opened before `from` (one not escaped by an odd run of backslashes); -1 when none does. */
function closingQuote(bytes: Uint8Array, from: number): number {
  for (let at = bytes.indexOf(QUOTE, from); at >= 0; at = bytes.indexOf(QUOTE, at + 1)) {
    let backslashes = 0;
    while (at - backslashes - 1 >= from && bytes[at - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}
