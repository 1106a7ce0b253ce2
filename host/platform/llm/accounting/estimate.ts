import type { ModelPrice } from '../../config/model/llm.js';

/** What one lane of a run is expected to cost, under the prices the run started with. */
export interface LaneEstimate {
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** null when the model has no price in the table. */
  usd: number | null;
}

/** What a run declares of one lane before it starts: the quote, unpriced. */
export type LaneQuote = Omit<LaneEstimate, 'usd'>;

/**
 * A run's pre-run quote, frozen with the config it ran under: later price-table edits never
 * reprice it (nor the run's reconciliation, which prices unpriced ledger rows from `config`).
 */
export interface Estimate {
  frozen_at: string;
  config: {
    embedding_model: string | null;
    gen_model: string | null;
    embedding_retry_max: number;
    /** The price-table entries of the run's models, as they were. */
    prices: Record<string, ModelPrice>;
  };
  lanes: Record<string, LaneEstimate>;
  /** Sum of the priced lanes; null when a lane could not be priced. */
  usd: number | null;
}

/** About four characters per token: a quote, not a measurement. */
export function tokensOf(chars: number): number {
  return Math.ceil(chars / 4);
}

export function priceOf(prices: Record<string, ModelPrice>, model: string, inputTokens: number, outputTokens: number): number | null {
  const price = prices[model];
  if (!price) return null;
  return (inputTokens * price.input_per_1m + outputTokens * price.output_per_1m) / 1_000_000;
}

export function buildEstimate(
  config: { embeddingModel?: string | undefined; genModel?: string | undefined; retryMax: number; priceTable: Record<string, ModelPrice> },
  lanes: Record<string, LaneQuote>,
): Estimate {
  const models = [config.embeddingModel, config.genModel].filter((m): m is string => !!m);
  const prices = Object.fromEntries(models.filter((m) => config.priceTable[m]).map((m) => [m, { ...config.priceTable[m]! }]));
  const priced: Record<string, LaneEstimate> = {};
  let usd: number | null = 0;
  for (const [lane, e] of Object.entries(lanes)) {
    const cost = priceOf(prices, e.model, e.input_tokens, e.output_tokens);
    priced[lane] = { ...e, usd: cost };
    usd = cost === null || usd === null ? null : usd + cost;
  }
  return {
    frozen_at: new Date().toISOString(),
    config: { embedding_model: config.embeddingModel ?? null, gen_model: config.genModel ?? null, embedding_retry_max: config.retryMax, prices },
    lanes: priced,
    usd,
  };
}
