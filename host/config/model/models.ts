import { integer, decimal, text } from './field-kinds.js';

/** Configuration keys of models behind answers and dense retrieval. */
export const ModelsKeys = {
  GEN_MODEL: text().default('gpt-4o-mini').describe('Model that writes RAG answers.'),
  GEN_TEMPERATURE: decimal(0, 2).default(0).describe('Sampling temperature of the answer model.'),
  GEN_MAX_TOKENS: integer(1).default(2048).describe('Most tokens an answer may use.'),
  GEN_TIMEOUT: integer(1).default(60).describe('Seconds to wait for the answer model.'),
  EMBEDDING_MODEL: text().default('text-embedding-3-small').describe('Model that embeds chunks and queries.'),
  EMBEDDING_DIM: integer(1).default(1536).describe('Dimensions of the embedding vectors (must match the model).'),
  EMBEDDING_BATCH_SIZE: integer(1).default(64).describe('Chunks embedded per request while indexing.'),
  TRACE_RETENTION: integer(0).default(50).describe('Trace files kept per repository under out/<repo>/traces (newest first).'),
};
