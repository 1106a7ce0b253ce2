import type { CensusSink } from '../../../platform/llm/gateway-client.js';
import type { RunAccounting } from '../../../platform/llm/accounting/run-accounting.js';

/** Lanes of the run identity headers (workbench spec): one run id per answer across all of them. */
export const LANES = {
  generation: 'answer_generation',
  rewrite: 'query_rewrite',
  condense: 'chat_condense',
  retrieval: 'retrieval_embeddings',
  cache: 'cache_embeddings',
} as const;

/** Run accounting of answers: a record per answer run (every lane declared, no quote), its census, its end. */
export interface AnswerAccounting {
  open(repo: string, runId: string): Promise<CensusSink>;
  close(runId: string, state: 'finished' | 'failed' | 'interrupted', error?: string): Promise<void>;
}

/** Answer runs in run accounting; their benchmark cost is the generation lane alone. */
export function answerAccounting(accounting: RunAccounting): AnswerAccounting {
  accounting.declareKind('answer', { benchmarkLane: LANES.generation });
  const unquoted = { model: '', requests: 1, input_tokens: 0, output_tokens: 0 };
  return {
    async open(repo, runId) {
      await accounting.open({ runId, corpusId: repo, runKind: 'answer', lanes: Object.fromEntries(Object.values(LANES).map((lane) => [lane, unquoted])) });
      return accounting.census(runId);
    },
    close: (runId, state, error) => accounting.close(runId, state, error ?? null),
  };
}
