import { z } from 'zod';
import { apiSecret, decimal, emptyAsUnset, integer, optionalText } from './field-kinds.js';

// JSON text from the environment, an object from the JSON config file.
const jsonFromText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

/** USD per one million tokens of one model. */
export const ModelPrice = z.object({ input_per_1m: z.number().min(0), output_per_1m: z.number().min(0).default(0) }).strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/**
 * Configuration keys of the OpenAI-compatible LLM gateway every model call goes through: where it
 * is, the models it serves this gateway, how embedding calls are retried, how runs are priced and
 * how its spend ledger is read (sections `embedding` and `accounting`, env `EMBEDDING__*` /
 * `ACCOUNTING__*`). See docs/workbench/run-accounting.md.
 */
export const LlmKeys = {
  LLM_GATEWAY_URL: z
    .preprocess(emptyAsUnset, z.url().default('http://127.0.0.1:54000'))
    .describe('Base URL of the OpenAI-compatible LLM gateway (its /v1 API) used for embeddings and answers.'),
  LLM_GATEWAY_API_KEY: apiSecret('API key sent to the LLM gateway as a bearer token.'),
  GEN_MODEL: optionalText().describe('Model that writes answers (POST /api/rag, /api/chat) through the LLM gateway; unset (the default) means no model: answers are extractive (the best snippets with their citations).'),
  GEN_TIMEOUT: integer(1).default(60).describe('Seconds one call to GEN_MODEL may take, retries included (an answer cut here falls back: graph, then simple, then extractive).'),
  EMBEDDING_MODEL: optionalText().describe('Model that embeds chunks and queries through the LLM gateway; unset (the default) turns dense retrieval off and BM25 alone answers.'),
  EMBEDDING_DIM: integer(1).default(1536).describe('Dimensions of the embedding vectors (must match the model).'),
  EMBEDDING_BATCH_SIZE: integer(1).default(64).describe('Chunks embedded per request while indexing.'),
  'embedding.embedding_retry_max': integer(1, 10)
    .default(3)
    .describe('Total attempts of one embedding request (the whole budget: the SDK and the gateway are asked for 0 retries); every attempt is a census row.'),
  'embedding.price_table': z
    .preprocess(jsonFromText, z.record(z.string().min(1), ModelPrice))
    .default({})
    .describe(
      'Prices for estimates and for ledger rows the gateway did not price: a JSON object mapping a model to USD per 1M tokens, e.g. ' +
        '{"text-embedding-3-small":{"input_per_1m":0.02},"gpt-4o-mini":{"input_per_1m":0.15,"output_per_1m":0.6}}. A run freezes the prices it started with.',
    ),
  'accounting.ledger_settle_s': decimal(0, 86400)
    .default(300)
    .describe('Seconds after a run ends during which ledger rows that have not landed make reconciliation pending; after that they are missing (incomplete).'),
  'accounting.ledger_page_size': integer(1, 1000).default(100).describe('Rows per page read from GET /spend/logs/v2.'),
  'accounting.ledger_max_pages': integer(1, 1000).default(50).describe('Pages read at most per reconciliation; more makes the check fail rather than read without bound.'),
  'accounting.ledger_max_page_bytes': integer(1024, 64 * 1024 * 1024).default(1024 * 1024).describe('Bytes read at most per ledger page; a larger page fails the check.'),
  'accounting.ledger_timeout_s': decimal(0.1, 600).default(10).describe('Seconds one ledger page read may take.'),
};
