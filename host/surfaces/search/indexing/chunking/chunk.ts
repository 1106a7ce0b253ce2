/** A piece of a file as indexed: 1-based inclusive lines, the definition(s) it holds. */
export interface Chunk {
  startLine: number;
  endLine: number;
  text: string;
  /** Definition name(s) inside, `Class.method` for members; null for plain text. */
  symbol: string | null;
  /** function, class, method, ..., `section` for Markdown, `window` for line windows. */
  kind: string;
}

export interface ChunkLimits {
  /** Characters per chunk (CHUNK_SIZE). */
  size: number;
  /** Characters shared by consecutive line windows (CHUNK_OVERLAP). */
  overlap: number;
}
