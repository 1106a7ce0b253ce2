import { inflateSync } from 'node:zlib';
import { InvalidDocumentError } from './errors.js';

/**
 * A bounded structural check of a PDF: the trailer at its end, the cross-reference sections it
 * chains to (classic tables and PDF 1.5 xref streams), the catalog and the page tree's root with
 * its /Count. It reads a few small windows of the file instead of parsing every object, so a
 * fax upload costs microseconds to check.
 *
 * It answers undefined whenever the file is not in the shape it understands (a damaged or
 * truncated file, an indirect /Length, a predictor other than PNG Up...): the caller then runs
 * the full parse, which either repairs and counts or refuses the file. It throws only for what
 * it can tell for certain: an encrypted file, a page tree without pages. `inflateBudget` bounds
 * the bytes all its compressed streams may inflate to together (past it: undefined).
 */
export function readPdfStructure(buf: Buffer, options: { inflateBudget?: number } = {}): { pages: number } | undefined {
  try {
    return new PdfReader(buf, options.inflateBudget ?? Infinity).read();
  } catch (err) {
    if (err instanceof InvalidDocumentError) throw err;
    return undefined;
  }
}

type Value = number | string | boolean | null | Ref | Name | Value[] | Dict;
interface Ref {
  ref: [number, number];
}
interface Name {
  name: string;
}
type Dict = Map<string, Value>;
type Entry = { offset: number } | { stream: number; index: number };

/** Thrown inside the reader when the file is not in the expected shape: the answer is undefined. */
class Unreadable extends Error {}

const TAIL_BYTES = 2048;
const MAX_SECTIONS = 32;
const MAX_OBJECT_BYTES = 64 * 1024;
const MAX_INFLATED_BYTES = 8 * 1024 * 1024;
const MAX_COUNT_DEPTH = 4;

const isRef = (v: Value | undefined): v is Ref => typeof v === 'object' && v !== null && 'ref' in v;
const isName = (v: Value | undefined, name?: string): v is Name => typeof v === 'object' && v !== null && 'name' in v && (name === undefined || v.name === name);
const isDict = (v: Value | undefined): v is Dict => v instanceof Map;
const int = (v: Value | undefined): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Unreadable('expected a non-negative integer');
  return v;
};

class PdfReader {
  private readonly entries = new Map<number, Entry>();
  private readonly objectStreams = new Map<number, { data: Buffer; offsets: Map<number, number> }>();

  constructor(
    private readonly buf: Buffer,
    private inflateBudget: number,
  ) {}

  read(): { pages: number } {
    const tail = this.buf.toString('latin1', Math.max(0, this.buf.length - TAIL_BYTES));
    const at = tail.lastIndexOf('startxref');
    const m = at < 0 ? null : /^startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail.slice(at));
    if (!m) throw new Unreadable('no trailer at the end of the file');
    let trailer: Dict | undefined;
    const seen = new Set<number>();
    const pending = [Number(m[1])];
    while (pending.length) {
      const offset = pending.shift()!;
      if (seen.has(offset) || seen.size >= MAX_SECTIONS || offset >= this.buf.length) throw new Unreadable('cross-reference chain');
      seen.add(offset);
      const dict = this.readSection(offset);
      trailer ??= dict;
      // A hybrid file's xref stream holds the objects its classic table leaves out.
      if (typeof dict.get('XRefStm') === 'number') pending.unshift(int(dict.get('XRefStm')));
      if (dict.has('Prev')) pending.push(int(dict.get('Prev')));
    }
    if (trailer!.has('Encrypt')) throw new InvalidDocumentError('the PDF is encrypted; send it without a password');
    const root = this.resolve(trailer!.get('Root'));
    if (!isDict(root)) throw new Unreadable('no catalog');
    const tree = this.resolve(root.get('Pages'));
    if (!isDict(tree) || !isName(tree.get('Type'), 'Pages') || !Array.isArray(this.resolve(tree.get('Kids')))) throw new Unreadable('no page tree');
    const pages = int(this.resolve(tree.get('Count')));
    if (pages < 1) throw new InvalidDocumentError('the PDF has no pages');
    return { pages };
  }

  /** One cross-reference section (table or stream) at `offset`: records its entries, returns its trailer. */
  private readSection(offset: number): Dict {
    const lexer = new Lexer(this.buf, offset);
    if (lexer.keyword('xref')) {
      for (;;) {
        if (lexer.keyword('trailer')) break;
        const first = int(lexer.number());
        const count = int(lexer.number());
        for (let i = 0; i < count; i++) {
          const entryOffset = int(lexer.number());
          lexer.number();
          const kind = lexer.word();
          // The newest section is read first: an older entry never replaces it.
          if (kind === 'n' && !this.entries.has(first + i)) this.entries.set(first + i, { offset: entryOffset });
          else if (kind !== 'n' && kind !== 'f') throw new Unreadable('xref entry');
        }
      }
      const trailer = lexer.value();
      if (!isDict(trailer)) throw new Unreadable('trailer');
      return trailer;
    }
    const { dict, data } = this.streamObject(offset);
    if (!isName(dict.get('Type'), 'XRef')) throw new Unreadable('not an xref stream');
    const widths = dict.get('W');
    if (!Array.isArray(widths) || widths.length !== 3) throw new Unreadable('/W');
    const [w0, w1, w2] = widths.map(int) as [number, number, number];
    const row = w0 + w1 + w2;
    const index = dict.get('Index');
    const ranges = Array.isArray(index) ? index.map(int) : [0, int(dict.get('Size'))];
    let pos = 0;
    const field = (width: number, fallback: number) => {
      if (width === 0) return fallback;
      let v = 0;
      for (let i = 0; i < width; i++) v = v * 256 + data[pos++]!;
      return v;
    };
    for (let r = 0; r + 1 < ranges.length; r += 2) {
      for (let i = 0; i < ranges[r + 1]!; i++) {
        if (pos + row > data.length) throw new Unreadable('xref stream too short');
        const num = ranges[r]! + i;
        const type = field(w0, 1);
        const a = field(w1, 0);
        const b = field(w2, 0);
        if (this.entries.has(num)) continue;
        if (type === 1) this.entries.set(num, { offset: a });
        else if (type === 2) this.entries.set(num, { stream: a, index: b });
      }
    }
    return dict;
  }

  /** The value of an indirect reference (or the value itself when it is direct). */
  private resolve(value: Value | undefined, depth = 0): Value | undefined {
    if (!isRef(value)) return value;
    if (depth > MAX_COUNT_DEPTH) throw new Unreadable('reference chain');
    const [num] = value.ref;
    const entry = this.entries.get(num);
    if (!entry) throw new Unreadable(`object ${num} not in the cross-reference`);
    if ('offset' in entry) {
      const lexer = new Lexer(this.buf, entry.offset);
      this.objectHeader(lexer, num);
      return this.resolve(lexer.value(), depth + 1);
    }
    const stream = this.objectStream(entry.stream);
    const at = stream.offsets.get(num);
    if (at === undefined) throw new Unreadable(`object ${num} not in its object stream`);
    return this.resolve(new Lexer(stream.data, at).value(), depth + 1);
  }

  private objectHeader(lexer: Lexer, num: number): void {
    if (lexer.number() !== num) throw new Unreadable('object number');
    lexer.number();
    if (!lexer.keyword('obj')) throw new Unreadable('obj');
  }

  private objectStream(num: number): { data: Buffer; offsets: Map<number, number> } {
    let cached = this.objectStreams.get(num);
    if (cached) return cached;
    const entry = this.entries.get(num);
    if (!entry || !('offset' in entry)) throw new Unreadable('object stream location');
    const { dict, data } = this.streamObject(entry.offset, num);
    const n = int(dict.get('N'));
    const first = int(dict.get('First'));
    const header = new Lexer(data, 0);
    const offsets = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const objNum = int(header.number());
      offsets.set(objNum, first + int(header.number()));
    }
    cached = { data, offsets };
    this.objectStreams.set(num, cached);
    return cached;
  }

  /** A stream object at `offset`: its dictionary and its decoded data (Flate, PNG Up predictor). */
  private streamObject(offset: number, expected?: number): { dict: Dict; data: Buffer } {
    const lexer = new Lexer(this.buf, offset);
    const num = lexer.number();
    if (expected !== undefined && num !== expected) throw new Unreadable('object number');
    lexer.number();
    if (!lexer.keyword('obj')) throw new Unreadable('obj');
    const dict = lexer.value();
    if (!isDict(dict)) throw new Unreadable('stream dictionary');
    const start = lexer.streamStart();
    const length = int(dict.get('Length'));
    if (start + length > this.buf.length) throw new Unreadable('stream past the end');
    let data = this.buf.subarray(start, start + length);
    const filter = dict.get('Filter');
    const filters = Array.isArray(filter) ? filter : filter === undefined ? [] : [filter];
    if (filters.length > 1 || (filters.length === 1 && !isName(filters[0], 'FlateDecode'))) throw new Unreadable('filter');
    if (filters.length === 1) {
      // Past the limit inflateSync throws, and the file is unreadable here.
      data = inflateSync(data, { maxOutputLength: Math.max(1, Math.min(MAX_INFLATED_BYTES, this.inflateBudget)) });
      this.inflateBudget -= data.length;
    }
    const parms = dict.get('DecodeParms');
    const predictor = isDict(parms) ? parms.get('Predictor') : undefined;
    if (predictor !== undefined && predictor !== 1) {
      if (predictor !== 12) throw new Unreadable('predictor');
      data = undoPngUp(data, int(isDict(parms) ? (parms.get('Columns') ?? 1) : 1));
    }
    return { dict, data };
  }
}

/** Reverses the PNG "Up" predictor rows (a filter byte, then `columns` bytes each). */
function undoPngUp(data: Buffer, columns: number): Buffer {
  const rowBytes = columns + 1;
  const rows = Math.floor(data.length / rowBytes);
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const filterType = data[r * rowBytes]!;
    if (filterType !== 2 && filterType !== 0) throw new Unreadable('png filter');
    for (let c = 0; c < columns; c++) {
      const raw = data[r * rowBytes + 1 + c]!;
      const above = r > 0 ? out[(r - 1) * columns + c]! : 0;
      out[r * columns + c] = filterType === 2 ? (raw + above) & 0xff : raw;
    }
  }
  return out;
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** Just enough of the PDF syntax for trailers, catalogs and page-tree roots, within a window. */
class Lexer {
  private readonly end: number;

  constructor(
    private readonly buf: Buffer,
    private pos: number,
  ) {
    this.end = Math.min(buf.length, pos + MAX_OBJECT_BYTES);
  }

  /** Moves past whitespace and comments; false when the window ends first. */
  private skipSpace(): boolean {
    while (this.pos < this.end) {
      const c = this.buf[this.pos]!;
      if (WHITESPACE.has(c)) this.pos++;
      else if (c === 0x25) while (this.pos < this.end && this.buf[this.pos] !== 0x0a && this.buf[this.pos] !== 0x0d) this.pos++;
      else return true;
    }
    return false;
  }

  private skip(): void {
    if (!this.skipSpace()) throw new Unreadable('window ended');
  }

  /**
   * The regular word at the cursor, consumed; undefined (nothing consumed) when there is none.
   * Look-aheads use this rather than catching: an exception per look-ahead cost more than the
   * rest of the check.
   */
  private tryWord(): string | undefined {
    if (!this.skipSpace()) return undefined;
    const start = this.pos;
    while (this.pos < this.end && !WHITESPACE.has(this.buf[this.pos]!) && !DELIMITERS.has(this.buf[this.pos]!)) this.pos++;
    return this.pos === start ? undefined : this.buf.toString('latin1', start, this.pos);
  }

  /** A regular word (keyword or number) at the cursor, consumed. */
  word(): string {
    const w = this.tryWord();
    if (w === undefined) throw new Unreadable('expected a word');
    return w;
  }

  keyword(word: string): boolean {
    const start = this.pos;
    if (this.tryWord() === word) return true;
    this.pos = start;
    return false;
  }

  number(): number {
    const w = this.word();
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) throw new Unreadable(`expected a number, got ${w.slice(0, 20)}`);
    return Number(w);
  }

  /** After a stream dictionary: `stream` and its end-of-line; the offset of the first data byte. */
  streamStart(): number {
    if (!this.keyword('stream')) throw new Unreadable('stream keyword');
    if (this.buf[this.pos] === 0x0d) this.pos++;
    if (this.buf[this.pos] === 0x0a) this.pos++;
    return this.pos;
  }

  value(depth = 0): Value {
    if (depth > 32) throw new Unreadable('nesting');
    this.skip();
    const c = this.buf[this.pos]!;
    if (c === 0x2f) {
      this.pos++;
      const start = this.pos;
      while (this.pos < this.end && !WHITESPACE.has(this.buf[this.pos]!) && !DELIMITERS.has(this.buf[this.pos]!)) this.pos++;
      return { name: this.buf.toString('latin1', start, this.pos) };
    }
    if (c === 0x3c && this.buf[this.pos + 1] === 0x3c) {
      this.pos += 2;
      const dict: Dict = new Map();
      for (;;) {
        this.skip();
        if (this.buf[this.pos] === 0x3e && this.buf[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return dict;
        }
        const key = this.value(depth + 1);
        if (!isName(key)) throw new Unreadable('dictionary key');
        dict.set(key.name, this.value(depth + 1));
      }
    }
    if (c === 0x5b) {
      this.pos++;
      const items: Value[] = [];
      for (;;) {
        this.skip();
        if (this.buf[this.pos] === 0x5d) {
          this.pos++;
          return items;
        }
        items.push(this.value(depth + 1));
      }
    }
    if (c === 0x28) return this.literalString();
    if (c === 0x3c) {
      const close = this.buf.indexOf(0x3e, this.pos);
      if (close < 0 || close >= this.end) throw new Unreadable('hex string');
      this.pos = close + 1;
      return '';
    }
    const w = this.word();
    if (w === 'true' || w === 'false') return w === 'true';
    if (w === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) throw new Unreadable(`unexpected ${w.slice(0, 20)}`);
    const n = Number(w);
    // `n g R` is a reference: look ahead for the generation and the R.
    if (/^\d+$/.test(w)) {
      const mark = this.pos;
      const gen = this.tryWord();
      if (gen !== undefined && /^\d+$/.test(gen) && this.tryWord() === 'R') return { ref: [n, Number(gen)] };
      this.pos = mark;
    }
    return n;
  }

  /** A literal string (balanced parentheses, backslash escapes): skipped, its content unused. */
  private literalString(): string {
    let depth = 0;
    while (this.pos < this.end) {
      const c = this.buf[this.pos++]!;
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return '';
    }
    throw new Unreadable('string');
  }
}
