import type { Node } from 'web-tree-sitter';
import type { Chunk, ChunkLimits } from './chunk.js';
import { grammar } from './grammars.js';
import type { SyntaxLanguage } from './languages.js';
import { lineWindows } from './line-windows.js';

interface Definition {
  start: number; // 0-based row
  end: number; // 0-based row, inclusive
  name: string;
  kind: string;
  children: Definition[];
}

/** A definition longer than this many chunk sizes is cut into its members (or line windows). */
const SPLIT_FACTOR = 2;

/**
 * Definitions (functions, classes, methods, ...) found by tree-sitter become chunks with their
 * names; the code between them becomes line windows; small neighbours are packed together up to
 * the chunk size so a file of one-line declarations does not turn into hundreds of rows.
 */
export async function syntaxChunks(source: string, lines: string[], language: SyntaxLanguage, limits: ChunkLimits): Promise<Chunk[]> {
  const { parser, query } = await grammar(language);
  const tree = parser.parse(source);
  if (!tree) return lineWindows(lines, 0, lines.length - 1, limits);
  let defs: Definition[];
  try {
    defs = nest(
      query.matches(tree.rootNode).flatMap((m) => {
        const def = m.captures.find((c) => c.name.startsWith('def'));
        const name = m.captures.find((c) => c.name === 'name');
        if (!def || !name) return [];
        return [toDefinition(def.node, name.node.text, def.name.slice(4) || 'definition')];
      }),
    );
  } finally {
    tree.delete();
  }
  const pieces: Chunk[] = [];
  cover(lines, defs, 0, lines.length - 1, null, limits, pieces);
  return pack(pieces, limits);
}

function toDefinition(node: Node, name: string, kind: string): Definition {
  return { start: node.startPosition.row, end: node.endPosition.row, name: name.replace(/\s+/g, ' ').slice(0, 200), kind, children: [] };
}

/** Definitions as a tree by line containment; duplicates (one node, two patterns) collapse. */
function nest(flat: Definition[]): Definition[] {
  flat.sort((a, b) => a.start - b.start || b.end - a.end);
  const roots: Definition[] = [];
  const stack: Definition[] = [];
  for (const d of flat) {
    while (stack.length && stack[stack.length - 1]!.end < d.start) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent && parent.start === d.start && parent.end === d.end) continue;
    if (parent && d.end <= parent.end) parent.children.push(d);
    else roots.push(d);
    stack.push(d);
  }
  return roots;
}

function size(lines: string[], from: number, to: number): number {
  let n = 0;
  for (let i = from; i <= to; i++) n += lines[i]!.length + 1;
  return n;
}

/** Chunks of lines [from, to]: each definition, and windows over the gaps between them. */
function cover(lines: string[], defs: Definition[], from: number, to: number, parent: string | null, limits: ChunkLimits, out: Chunk[]): void {
  let cursor = from;
  for (const d of defs) {
    if (d.start < cursor || d.end > to) continue; // overlaps something already covered
    if (d.start > cursor) gap(lines, cursor, d.start - 1, parent, limits, out);
    const symbol = parent ? `${parent}.${d.name}` : d.name;
    const chars = size(lines, d.start, d.end);
    if (chars <= limits.size * SPLIT_FACTOR) {
      out.push({ startLine: d.start + 1, endLine: d.end + 1, text: lines.slice(d.start, d.end + 1).join('\n'), symbol, kind: d.kind });
    } else if (d.children.length) {
      // The container's own lines (signature, fields) are gaps named after it; members get their own chunks.
      cover(lines, d.children, d.start, d.end, symbol, limits, out);
    } else {
      out.push(...lineWindows(lines, d.start, d.end, limits, symbol, d.kind));
    }
    cursor = d.end + 1;
  }
  if (cursor <= to) gap(lines, cursor, to, parent, limits, out);
}

function gap(lines: string[], from: number, to: number, parent: string | null, limits: ChunkLimits, out: Chunk[]): void {
  out.push(...lineWindows(lines, from, to, limits, parent, parent ? 'body' : 'window'));
}

/** Packs consecutive small pieces into one chunk up to the chunk size. */
function pack(pieces: Chunk[], limits: ChunkLimits): Chunk[] {
  const out: Chunk[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last.text.length + p.text.length + 1 <= limits.size && p.startLine > last.endLine) {
      const gapLines = p.startLine - last.endLine - 1;
      if (gapLines === 0) {
        last.text = `${last.text}\n${p.text}`;
        last.endLine = p.endLine;
        last.symbol = [last.symbol, p.symbol].filter(Boolean).join(' ') || null;
        if (last.kind !== p.kind) last.kind = 'definitions';
        continue;
      }
    }
    out.push({ ...p });
  }
  return out;
}
