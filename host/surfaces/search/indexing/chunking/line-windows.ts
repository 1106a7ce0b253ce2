import type { Chunk, ChunkLimits } from './chunk.js';

/**
 * Line windows of about `size` characters over lines [from, to] (0-based, inclusive), each
 * starting where the previous one's last `overlap` characters begin. Lines are never cut.
 */
export function lineWindows(lines: string[], from: number, to: number, limits: ChunkLimits, symbol: string | null = null, kind = 'window'): Chunk[] {
  const out: Chunk[] = [];
  let start = from;
  while (start <= to) {
    let end = start;
    let size = lines[start]!.length + 1;
    while (end < to && size + lines[end + 1]!.length + 1 <= limits.size) {
      end++;
      size += lines[end]!.length + 1;
    }
    const text = lines.slice(start, end + 1).join('\n');
    if (text.trim()) out.push({ startLine: start + 1, endLine: end + 1, text, symbol, kind });
    if (end >= to) break;
    // Step back over the overlap, but always move forward by at least one line.
    let next = end + 1;
    let back = 0;
    while (next - 1 > start && back + lines[next - 1]!.length + 1 <= limits.overlap) {
      next--;
      back += lines[next]!.length + 1;
    }
    start = Math.max(next, start + 1);
  }
  return out;
}
