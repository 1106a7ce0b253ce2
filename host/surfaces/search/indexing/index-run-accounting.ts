import { tokensOf, type LaneQuote } from '../../../platform/llm/accounting/estimate.js';
import type { OwnedRun, RunAccounting } from '../../../platform/llm/accounting/run-accounting.js';
import type { SearchConfig } from '../search-settings.js';
import type { IndexRun, IndexRunStore } from './index-run-store.js';

/** The kind of an index run's accounting record. */
const INDEX = 'index';

/**
 * Index runs in run accounting: code search owns them, so their state (and that of runs from
 * before accounting) is read from index_runs, and each record opens with the lanes of the run.
 */
export class IndexRunAccounting {
  constructor(private readonly deps: { accounting: RunAccounting; runs: IndexRunStore; config: SearchConfig }) {
    const owned = (run: IndexRun | undefined): OwnedRun | undefined => run && { id: run.id, corpus_id: run.repo, state: run.state, error: run.error, started_at: run.started_at, finished_at: run.finished_at };
    deps.accounting.declareKind(INDEX, { owner: { get: async (runId) => owned(await deps.runs.get(runId)), latest: async (corpusId) => owned(await deps.runs.latest(corpusId)) } });
  }

  get store(): RunAccounting['store'] {
    return this.deps.accounting.store;
  }

  /** Lanes, exclusions and the frozen estimate of an index run (before its child starts). */
  async open(run: Pick<IndexRun, 'id' | 'repo' | 'started_at'>, enrich: boolean, sizes: { chunks: number; chars: number }): Promise<void> {
    const { config } = this.deps;
    const embeddingModel = config.get('EMBEDDING_MODEL');
    const genModel = config.get('GEN_MODEL');
    const lanes: Record<string, LaneQuote> = {};
    const notApplicable: Record<string, string> = {};
    const coverage: string[] = [];
    if (embeddingModel) {
      const batch = config.get('EMBEDDING_BATCH_SIZE');
      lanes.index_embeddings = { model: embeddingModel, requests: Math.ceil(sizes.chunks / Math.max(1, batch)), input_tokens: tokensOf(sizes.chars), output_tokens: 0 };
    } else {
      notApplicable.index_embeddings = 'EMBEDDING_MODEL is unset: no chunk embeddings (BM25 only)';
      // The retrieval backend may embed by itself: that provider's charges are not on the gateway ledger.
      coverage.push('chunk embeddings, if the retrieval backend makes any, do not route through the LLM gateway and are not attributed');
    }
    if (enrich && genModel && embeddingModel) {
      lanes.semantic_kg = { model: genModel, requests: sizes.chunks, input_tokens: tokensOf(sizes.chars) + sizes.chunks * 60, output_tokens: sizes.chunks * 300 };
    } else {
      notApplicable.semantic_kg = !enrich ? 'the run does not enrich (enrich: false)' : !genModel ? 'GEN_MODEL is unset: no semantic_kg calls' : 'EMBEDDING_MODEL is unset: the indexer has no gateway client';
    }
    notApplicable.figure_description = 'the run describes no images';
    await this.deps.accounting.open({ runId: run.id, corpusId: run.repo, runKind: INDEX, lanes, notApplicable, coverageReasons: coverage, startedAt: run.started_at });
  }
}
