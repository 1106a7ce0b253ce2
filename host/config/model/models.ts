import { z } from 'zod';
import { integer, decimal, text, optionalText, apiSecret, emptyAsUnset } from './field-kinds.js';

/** Configuration keys of models behind answers and dense retrieval. */
export const ModelsKeys = {
  GEN_MODEL: text().default('gpt-4o-mini').describe('Model that writes RAG answers.'),
  GEN_TEMPERATURE: decimal(0, 2).default(0).describe('Sampling temperature of the answer model.'),
  GEN_MAX_TOKENS: integer(1).default(2048).describe('Most tokens an answer may use.'),
  GEN_TIMEOUT: integer(1).default(60).describe('Seconds to wait for the answer model.'),
  LLM_GATEWAY_URL: z
    .preprocess(emptyAsUnset, z.url().default('http://127.0.0.1:54000'))
    .describe('Base URL of the OpenAI-compatible LLM gateway (its /v1 API) used for embeddings and answers.'),
  LLM_GATEWAY_API_KEY: apiSecret('API key sent to the LLM gateway as a bearer token.'),
  EMBEDDING_MODEL: optionalText().describe('Model that embeds chunks and queries through the LLM gateway; unset (the default) turns dense retrieval off and BM25 alone answers.'),
  EMBEDDING_DIM: integer(1).default(1536).describe('Dimensions of the embedding vectors (must match the model).'),
  EMBEDDING_BATCH_SIZE: integer(1).default(64).describe('Chunks embedded per request while indexing.'),
  TRACE_RETENTION: integer(0).default(50).describe('Trace files kept per repository under out/<repo>/traces (newest first).'),
};
