import { integer, decimal, optionalText } from '../../../platform/config/model/field-kinds.js';

/** Configuration keys of models behind answers and dense retrieval. */
export const ModelsKeys = {
  GEN_TEMPERATURE: decimal(0, 2).default(0).describe('Sampling temperature of the answer model.'),
  GEN_MAX_TOKENS: integer(1).default(2048).describe('Most tokens an answer may use.'),
  ANSWER_CACHE_SIZE: integer(0, 100_000).default(256).describe('Answers kept in the in-memory semantic cache (least recently used dropped first); 0 turns the cache off.'),
  ANSWER_CACHE_TTL: integer(1).default(3600).describe('Seconds a cached answer stays usable. A new finished indexing run of the repository invalidates it sooner.'),
  ANSWER_CACHE_THRESHOLD: decimal(0, 1)
    .default(0.95)
    .describe('Cosine similarity from which a different question is answered from the cache (with EMBEDDING_MODEL set; identical questions hit without embeddings).'),
  TRACE_RETENTION: integer(0).default(50).describe('Trace files kept per repository under DATA_DIR/out/<repo>/traces (newest first).'),
};
