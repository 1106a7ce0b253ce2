import { z } from 'zod';
import { integer, decimal, optionalText, apiSecret, emptyAsUnset } from './field-kinds.js';

/** Configuration keys of models behind answers and dense retrieval. */
export const ModelsKeys = {
  GEN_MODEL: optionalText().describe('Model that writes answers (POST /api/rag, /api/chat) through the LLM gateway; unset (the default) means no model: answers are extractive (the best snippets with their citations).'),
  GEN_TEMPERATURE: decimal(0, 2).default(0).describe('Sampling temperature of the answer model.'),
  GEN_MAX_TOKENS: integer(1).default(2048).describe('Most tokens an answer may use.'),
  GEN_TIMEOUT: integer(1).default(60).describe('Seconds one answer-model call may take, retries included; a call cut here falls back (graph, then simple, then extractive).'),
  ANSWER_CACHE_SIZE: integer(0, 100_000).default(256).describe('Answers kept in the in-memory semantic cache (least recently used dropped first); 0 turns the cache off.'),
  ANSWER_CACHE_TTL: integer(1).default(3600).describe('Seconds a cached answer stays usable. A new finished indexing run of the repository invalidates it sooner.'),
  ANSWER_CACHE_THRESHOLD: decimal(0, 1)
    .default(0.95)
    .describe('Cosine similarity from which a different question is answered from the cache (with EMBEDDING_MODEL set; identical questions hit without embeddings).'),
  LLM_GATEWAY_URL: z
    .preprocess(emptyAsUnset, z.url().default('http://127.0.0.1:54000'))
    .describe('Base URL of the OpenAI-compatible LLM gateway (its /v1 API) used for embeddings and answers.'),
  LLM_GATEWAY_API_KEY: apiSecret('API key sent to the LLM gateway as a bearer token.'),
  EMBEDDING_MODEL: optionalText().describe('Model that embeds chunks and queries through the LLM gateway; unset (the default) turns dense retrieval off and BM25 alone answers.'),
  EMBEDDING_DIM: integer(1).default(1536).describe('Dimensions of the embedding vectors (must match the model).'),
  EMBEDDING_BATCH_SIZE: integer(1).default(64).describe('Chunks embedded per request while indexing.'),
  TRACE_RETENTION: integer(0).default(50).describe('Trace files kept per repository under out/<repo>/traces (newest first).'),
};
