import type { Chunk, ChunkLimits } from './chunk.js';
import { isSyntaxLanguage, type Language } from './languages.js';
import { lineWindows } from './line-windows.js';
import { markdownChunks } from './markdown-chunks.js';
import { syntaxChunks } from './syntax-chunks.js';

/**
 * Files larger than this are cut into line windows without parsing: tree-sitter (wasm) parses
 * about 2 MB/s, and a source file this large is usually generated or bundled.
 */
export const SYNTAX_MAX_CHARS = 32 * 1024;

/** Chunks of one file by its language: definitions, Markdown sections or line windows. */
export async function chunkFile(source: string, language: Language, limits: ChunkLimits): Promise<Chunk[]> {
  const lines = source.split(/\r?\n/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  if (!lines.length) return [];
  if (language === 'markdown') return markdownChunks(lines, limits);
  if (isSyntaxLanguage(language) && source.length <= SYNTAX_MAX_CHARS) return syntaxChunks(source, lines, language, limits);
  return lineWindows(lines, 0, lines.length - 1, limits);
}
