import { z } from 'zod';
import { decimal, integer } from './field-kinds.js';

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
 * Configuration keys of gateway embeddings and run accounting (sections `embedding` and
 * `accounting`, env `EMBEDDING__*` / `ACCOUNTING__*`). See docs/workbench/run-accounting.md.
 */
export const EmbeddingKeys = {
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
  SCHEMA_PROPOSAL_RPM: integer(1).default(6).describe('Calls per minute, per API key (or client address), of POST /api/index/{corpus_id}/schema-proposal: each is an LLM call. Concurrent calls for one corpus share one proposal.'),
};
