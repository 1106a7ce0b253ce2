/**
 * The retrieval contract: index documents, search them, delete them.
 *
 * 1.1 adds only optional members (design.md: inside a major only optional members are added):
 * search options (filters by path and language, a query vector, fusion and re-scoring knobs),
 * delete by path, stats, and write sessions that replace a collection's sources atomically.
 * 1.2 adds `enrichment` to documents and hits (optional for backends: one that ignores it still
 * conforms; one that supports it indexes it as its own field and returns it on hits).
 * 1.3 adds `terms` to documents: index terms the host made ahead (in its chunking threads), which a
 * backend that stores `indexTerms` of switchboard/sdk/retrieval may use instead of making them.
 */
export const RETRIEVAL_CONTRACT = '1.3.0';

/**
 * A document's index terms made ahead by the host, each exactly what switchboard/sdk/retrieval
 * makes: `body` = indexTerms(text), `symbol` = indexTerms(metadata.symbol), `path` =
 * pathTerms(metadata.path) stemmed and joined by spaces. Since 1.3, optional: a backend may use
 * them (and make any that is missing itself) or ignore them; the text stays the authority.
 */
export interface RetrievalDocumentTerms {
  body?: string;
  symbol?: string;
  path?: string;
}

export interface RetrievalDocument {
  id: string;
  text: string;
  /**
   * Code search sets `path` (relative to the repository root), `start_line`, `end_line`
   * (1-based, inclusive), `language`, `symbol` (a definition's name) and `kind`, and for
   * freshness `run_id`, `indexed_at` (ISO time), `file_size` and `file_mtime_ms` (the file's stamp
   * when it was read). A backend returns every metadata key it was given.
   */
  metadata?: Record<string, unknown>;
  /** A dense embedding of `text`, when the host computed one. */
  vector?: number[];
  /**
   * Words about `text` that are not in it: an LLM's summary and search keywords (ENRICH_CODE_CHUNKS).
   * Since 1.2, optional: a backend that supports it makes it searchable as its own field with its
   * own weight (a query matching only these words finds the document) and returns it on hits.
   */
  enrichment?: string;
  /** Index terms made ahead by the host (see RetrievalDocumentTerms). Since 1.3. */
  terms?: RetrievalDocumentTerms;
}

export interface RetrievalHit {
  id: string;
  score: number;
  text: string;
  metadata?: Record<string, unknown>;
  /** Per-signal scores behind `score` (bm25, vector, path, symbol, ...), for traces. */
  signals?: Record<string, number>;
  /** The document's `enrichment`, when the backend stores it. Since 1.2. */
  enrichment?: string;
}

export interface RetrievalFilters {
  /** Only documents whose path starts with one of these prefixes. */
  pathPrefixes?: string[];
  /** Only documents of these languages (`typescript`, `python`, `markdown`, ...). */
  languages?: string[];
}

export interface RetrievalFusion {
  /** k of reciprocal rank fusion: weight / (k + rank). */
  kDiv: number;
  sparseWeight: number;
  denseWeight: number;
  topKSparse: number;
  topKDense: number;
}

export interface RetrievalSearchOptions {
  filters?: RetrievalFilters;
  /** The query's embedding; a backend with stored vectors fuses dense with sparse ranks. */
  queryVector?: number[];
  fusion?: RetrievalFusion;
  /** Terms that earn a score multiplier when a hit contains them (discriminative keywords). */
  boostTerms?: { terms: string[]; factor: number };
}

export interface RetrievalStats {
  documents: number;
  sources: number;
  vectors: number;
  /** Bytes the collection uses on disk, when the backend knows. */
  bytes?: number;
}

/** A source (a file) as last committed: its content hash. */
export interface RetrievalSource {
  path: string;
  hash: string;
}

/**
 * A write session over one collection. Nothing it does is visible to searches until commit(),
 * which publishes every change at once; abort() (or a crash) leaves the collection as it was.
 */
export interface RetrievalWriteSession {
  /** The committed sources, so an indexer re-chunks only what changed. */
  sources(): Promise<RetrievalSource[]>;
  /** Replaces every document of `path` with `documents`, remembering `hash`. */
  replaceSource(path: string, hash: string, documents: RetrievalDocument[]): Promise<void>;
  /** Removes sources and their documents. */
  deleteSources(paths: string[]): Promise<{ deleted: number }>;
  commit(): Promise<RetrievalStats>;
  abort(): Promise<void>;
}

export interface RetrievalProvider {
  index(collection: string, documents: RetrievalDocument[]): Promise<{ indexed: number }>;
  search(collection: string, query: string, topK: number, options?: RetrievalSearchOptions): Promise<RetrievalHit[]>;
  delete(collection: string, ids: string[]): Promise<{ deleted: number }>;
  /** Removes every document whose metadata.path is one of `paths`. Since 1.1. */
  deleteByPath?(collection: string, paths: string[]): Promise<{ deleted: number }>;
  /** Counts of a collection; zeros when it does not exist. Since 1.1. */
  stats?(collection: string): Promise<RetrievalStats>;
  /** Opens an atomic write session (one at a time per collection). Since 1.1. */
  openSession?(collection: string): Promise<RetrievalWriteSession>;
}
