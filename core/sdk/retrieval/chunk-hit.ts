import type { RetrievalHit } from '../contracts/retrieval.js';
import type { Scored } from './candidate.js';

/** A chunk as backends store it: the code-search metadata in columns, anything else as a JSON object. */
export interface ChunkColumns {
  id: string;
  text: string;
  path: string | null;
  language: string | null;
  start_line: number | null;
  end_line: number | null;
  symbol: string | null;
  kind: string | null;
  /** JSON of the document's other metadata, or null. */
  metadata: string | null;
  /** The chunk's enrichment (summary and keywords), for backends that store it. */
  enrichment?: string | null;
}

/** The hit a search returns for a ranked chunk: its columns back in `metadata`, the score rounded, the signals kept. */
export function chunkHit(scored: Scored, row: ChunkColumns): RetrievalHit {
  const metadata: Record<string, unknown> = row.metadata ? { ...(JSON.parse(row.metadata) as Record<string, unknown>) } : {};
  if (row.path) metadata.path = row.path;
  if (row.language) metadata.language = row.language;
  if (row.start_line != null) metadata.start_line = row.start_line;
  if (row.end_line != null) metadata.end_line = row.end_line;
  if (row.symbol) metadata.symbol = row.symbol;
  if (row.kind) metadata.kind = row.kind;
  return { id: row.id, score: Number(scored.score.toFixed(6)), text: row.text, metadata, signals: scored.signals, ...(row.enrichment ? { enrichment: row.enrichment } : {}) };
}
