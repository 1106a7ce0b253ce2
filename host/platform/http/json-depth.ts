const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** JSON_MAX_DEPTH's default, for an API built without the configuration. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

/**
 * The nesting of a JSON text, read from its bytes as they arrive and before any parse: a hostile
 * body is refused without being gathered or turned into an object graph. Strings are skipped with
 * indexOf (a base64 document costs a few calls), so brackets inside them do not count.
 */
export class JsonDepthScan {
  private depth = 0;
  private inString = false;
  /** The last byte fed was a backslash inside a string: the next one is escaped. */
  private escaped = false;
  exceeded = false;

  constructor(readonly maxDepth: number) {}

  /** Reads the next bytes of the text; true once arrays and objects have nested deeper than maxDepth. */
  feed(bytes: Uint8Array): boolean {
    if (this.exceeded) return true;
    // Where the next quote and backslash are, searched again only once passed: no byte is searched twice.
    let quote = -2;
    let backslash = -2;
    for (let i = 0; i < bytes.length; i++) {
      if (this.escaped) {
        this.escaped = false;
        continue;
      }
      if (this.inString) {
        if (quote === -2 || (quote >= 0 && quote < i)) quote = bytes.indexOf(QUOTE, i);
        if (backslash === -2 || (backslash >= 0 && backslash < i)) backslash = bytes.indexOf(BACKSLASH, i);
        if (backslash >= 0 && (quote < 0 || backslash < quote)) {
          i = backslash;
          this.escaped = true;
        } else if (quote >= 0) {
          i = quote;
          this.inString = false;
        } else {
          return false; // the string goes on in the next bytes
        }
        continue;
      }
      const b = bytes[i];
      if (b === QUOTE) this.inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        if (++this.depth > this.maxDepth) return (this.exceeded = true);
      } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) this.depth--;
    }
    return false;
  }
}

/** Whether a whole JSON text nests arrays and objects deeper than `maxDepth`. */
export function exceedsJsonDepth(bytes: Uint8Array, maxDepth: number): boolean {
  return new JsonDepthScan(maxDepth).feed(bytes);
}
