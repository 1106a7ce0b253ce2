import type { Chunk, ChunkLimits } from './chunk.js';
import { lineWindows } from './line-windows.js';

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/** Markdown by heading: each section (heading to the next heading) is a chunk named by its heading. */
export function markdownChunks(lines: string[], limits: ChunkLimits): Chunk[] {
  const starts: Array<{ line: number; title: string | null }> = [{ line: 0, title: null }];
  let fence = false;
  lines.forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && HEADING.exec(line);
    if (m) {
      if (i === 0) starts[0] = { line: 0, title: m[2]! };
      else starts.push({ line: i, title: m[2]! });
    }
  });
  const out: Chunk[] = [];
  starts.forEach((s, i) => {
    const end = (starts[i + 1]?.line ?? lines.length) - 1;
    if (end < s.line) return;
    const text = lines.slice(s.line, end + 1).join('\n');
    if (!text.trim()) return;
    if (text.length <= limits.size * 2) out.push({ startLine: s.line + 1, endLine: end + 1, text, symbol: s.title, kind: 'section' });
    else out.push(...lineWindows(lines, s.line, end, limits, s.title, 'section'));
  });
  return out;
}
