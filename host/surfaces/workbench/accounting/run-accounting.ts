import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { llmGatewayEndpoint } from '../../../platform/llm/gateway-endpoint.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { WorkbenchConfig } from '../workbench-settings.js';
import type { CodeSearchPort } from '../../../platform/ports/code-search.js';
import type { CensusSink } from '../../../platform/llm/gateway-client.js';
import { buildEstimate, tokensOf, type Estimate } from './estimate.js';
import { censusOf, reconcile, type LaneCensus, type NativeRunCosts } from './reconcile.js';
import type { OwnerState, RunAccountRow, RunAccountStore, RunKind } from './run-account-store.js';
import { LedgerReadError, readSpendLedger } from './spend-ledger-client.js';
import { platformErrors } from '../../../platform/errors/platform-errors.js';

/** The UI words of the spec for a run's costs. */
export type CostsLabel = 'Pending' | 'Complete' | 'Incomplete' | 'Incomplete · Interrupted' | 'Check failed' | 'Unavailable';

export interface RunRecordView {
  run_id: string;
  corpus_id: string;
  run_kind: RunKind;
  state: OwnerState;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  lanes: LaneCensus[];
  not_applicable: Record<string, string>;
  coverage_reasons: string[];
  estimate: Estimate | null;
  costs: NativeRunCosts | null;
  /** The last ledger check failed (this reconciliation): costs keep the last saved state. */
  check_error?: string;
  label: CostsLabel;
  result?: unknown;
  corpus_deleted: boolean;
}

/**
 * Run accounting: opens records with their frozen estimate, serves the census, and reconciles
 * it against the gateway's spend ledger. Pending results are never saved (a pure read); complete
 * and incomplete ones are, with the charges known so far.
 */
export class RunAccounting {
  constructor(
    private readonly deps: { store: RunAccountStore; indexRuns: CodeSearchPort['indexRuns']; config: WorkbenchConfig; logger: Logger; outbound?: OutboundGuard },
  ) {}

  get store(): RunAccountStore {
    return this.deps.store;
  }

  /** Lanes, exclusions and the frozen estimate of an index run (before its child starts). */
  async openIndexRun(runId: string, corpusId: string, enrich: boolean, startedAt: string, sizes: { chunks: number; chars: number }): Promise<void> {
    const { config } = this.deps;
    const embeddingModel = config.get('EMBEDDING_MODEL');
    const genModel = config.get('GEN_MODEL');
    const lanes: string[] = [];
    const notApplicable: Record<string, string> = {};
    const coverage: string[] = [];
    const estimateLanes: Parameters<typeof buildEstimate>[1] = {};
    if (embeddingModel) {
      lanes.push('index_embeddings');
      const batch = config.get('EMBEDDING_BATCH_SIZE');
      estimateLanes.index_embeddings = { model: embeddingModel, requests: Math.ceil(sizes.chunks / Math.max(1, batch)), input_tokens: tokensOf(sizes.chars), output_tokens: 0 };
    } else {
      notApplicable.index_embeddings = 'EMBEDDING_MODEL is unset: no chunk embeddings (BM25 only)';
      // The retrieval backend may embed by itself: that provider's charges are not on the gateway ledger.
      coverage.push('chunk embeddings, if the retrieval backend makes any, do not route through the LLM gateway and are not attributed');
    }
    if (enrich && genModel && embeddingModel) {
      lanes.push('semantic_kg');
      estimateLanes.semantic_kg = { model: genModel, requests: sizes.chunks, input_tokens: tokensOf(sizes.chars) + sizes.chunks * 60, output_tokens: sizes.chunks * 300 };
    } else {
      notApplicable.semantic_kg = !enrich ? 'the run does not enrich (enrich: false)' : !genModel ? 'GEN_MODEL is unset: no semantic_kg calls' : 'EMBEDDING_MODEL is unset: the indexer has no gateway client';
    }
    notApplicable.figure_description = 'the run describes no images';
    await this.deps.store.create({
      runId,
      corpusId,
      runKind: 'index',
      lanes,
      notApplicable,
      coverageReasons: coverage,
      estimate: buildEstimate({ embeddingModel, genModel, retryMax: config.get('embedding.embedding_retry_max'), priceTable: config.get('embedding.price_table') }, estimateLanes),
      startedAt,
    });
  }

  /** Opens a record of an in-process run (schema proposal, search, answer). */
  async openRun(corpusId: string, runKind: RunKind, lanes: Record<string, { model: string; input_tokens: number; output_tokens: number }>, notApplicable: Record<string, string> = {}, runId: string = randomUUID()): Promise<string> {
    const { config } = this.deps;
    await this.deps.store.create({
      runId,
      corpusId,
      runKind,
      lanes: Object.keys(lanes),
      notApplicable,
      coverageReasons: [],
      estimate: buildEstimate(
        { embeddingModel: config.get('EMBEDDING_MODEL'), genModel: config.get('GEN_MODEL'), retryMax: config.get('embedding.embedding_retry_max'), priceTable: config.get('embedding.price_table') },
        Object.fromEntries(Object.entries(lanes).map(([lane, e]) => [lane, { ...e, requests: 1 }])),
      ),
    });
    return runId;
  }

  /** The answers' side of accounting: a record per answer run (lanes all declared, no quote). */
  answerAccounting(): { open(repo: string, runId: string, lanes: string[]): Promise<CensusSink>; close(runId: string, state: 'finished' | 'failed' | 'interrupted', error?: string): Promise<void> } {
    return {
      open: async (repo, runId, lanes) => {
        await this.openRun(repo, 'answer', Object.fromEntries(lanes.map((l) => [l, { model: '', input_tokens: 0, output_tokens: 0 }])), {}, runId);
        return this.deps.store.sink(runId);
      },
      close: async (runId, state, error) => {
        await this.deps.store.closeCensus(runId);
        await this.deps.store.finish(runId, state, error ?? null);
      },
    };
  }

  /** One run of a corpus, or a 404 (a run of another corpus is not found here either). */
  async view(corpusId: string, runId: string): Promise<RunRecordView> {
    const row = await this.deps.store.get(runId);
    if (row && row.corpus_id === corpusId) return this.toView(row);
    const legacy = await this.deps.indexRuns.get(runId);
    if (legacy && legacy.repo === corpusId) return this.unavailable(legacy);
    throw platformErrors.error('run_not_found', { reason: `no run ${runId} of corpus "${corpusId}"` });
  }

  async latest(corpusId: string, runKind: RunKind, finalize: boolean): Promise<RunRecordView> {
    if (await this.deps.store.isDeleted(corpusId)) throw platformErrors.error('corpus_deleted', { corpus: corpusId, hint: 'its runs stay readable by id' });
    const row = await this.deps.store.latest(corpusId, runKind);
    if (!row) {
      const legacy = runKind === 'index' ? await this.deps.indexRuns.latest(corpusId) : undefined;
      if (legacy) return this.unavailable(legacy);
      throw platformErrors.error('run_not_found', { reason: `corpus "${corpusId}" has no ${runKind} run` });
    }
    return finalize ? this.reconcile(corpusId, row.run_id) : this.toView(row);
  }

  /** Reads the ledger and classifies it; saves complete and incomplete results only. */
  async reconcile(corpusId: string, runId: string): Promise<RunRecordView> {
    const row = await this.deps.store.get(runId);
    if (!row || row.corpus_id !== corpusId) return this.view(corpusId, runId);
    const { config } = this.deps;
    const owner = await this.ownerState(row);
    const requests = await this.deps.store.requests(runId);
    const estimate = JSON.parse(row.estimate) as Estimate;
    const lanes = JSON.parse(row.lanes) as string[];
    let rows;
    try {
      // A run that declared no gateway lane and admitted no request has nothing on the ledger.
      rows = !lanes.length && !requests.length ? [] : await readSpendLedger(
        {
          ...llmGatewayEndpoint(config),
          ...(this.deps.outbound ? { guard: this.deps.outbound } : {}),
          pageSize: config.get('accounting.ledger_page_size'),
          maxPages: config.get('accounting.ledger_max_pages'),
          maxPageBytes: config.get('accounting.ledger_max_page_bytes'),
          timeoutMs: config.get('accounting.ledger_timeout_s') * 1000,
        },
        runId,
        new Date(Date.parse(row.started_at) - 60_000),
        new Date(Date.now() + 60_000),
      );
    } catch (err) {
      if (!(err instanceof LedgerReadError)) throw err;
      this.deps.logger.warn({ run: runId, err: err.message }, 'spend ledger check failed');
      return { ...(await this.toView(row)), check_error: err.message, label: 'Check failed' };
    }
    const costs = reconcile({
      lanes,
      owner: owner.state,
      censusClosed: row.census_closed === 1,
      finishedAt: owner.finishedAt,
      requests,
      rows,
      prices: estimate.config.prices,
      settleMs: config.get('accounting.ledger_settle_s') * 1000,
      now: Date.now(),
    });
    if (costs.state === 'pending') return { ...(await this.toView(row)), costs, label: labelOf(costs) };
    await this.deps.store.saveCosts(runId, costs);
    return this.toView({ ...row, costs: JSON.stringify(costs) });
  }

  /** The owner's state: an index run's comes from its durable run row (sweeps and restarts included). */
  private async ownerState(row: RunAccountRow): Promise<{ state: OwnerState; finishedAt: string | null; error: string | null }> {
    if (row.run_kind === 'index') {
      const run = await this.deps.indexRuns.get(row.run_id);
      if (run) return { state: run.state as OwnerState, finishedAt: run.finished_at, error: run.error };
    }
    return { state: row.state as OwnerState, finishedAt: row.finished_at, error: row.error };
  }

  private async toView(row: RunAccountRow): Promise<RunRecordView> {
    const owner = await this.ownerState(row);
    const requests = await this.deps.store.requests(row.run_id);
    const lanes = censusOf(JSON.parse(row.lanes) as string[], owner.state, row.census_closed === 1, requests);
    const costs = row.costs ? (JSON.parse(row.costs) as NativeRunCosts) : null;
    const view: RunRecordView = {
      run_id: row.run_id,
      corpus_id: row.corpus_id,
      run_kind: row.run_kind as RunKind,
      state: owner.state,
      error: owner.error,
      started_at: row.started_at,
      finished_at: owner.finishedAt,
      lanes,
      not_applicable: JSON.parse(row.not_applicable) as Record<string, string>,
      coverage_reasons: JSON.parse(row.coverage_reasons) as string[],
      estimate: JSON.parse(row.estimate) as Estimate,
      costs,
      label: costs ? labelOf(costs) : 'Pending',
      corpus_deleted: await this.deps.store.isDeleted(row.corpus_id),
    };
    if (row.result) view.result = JSON.parse(row.result);
    return view;
  }

  /** An index run from before accounting was saved: readable, its costs Unavailable. */
  private async unavailable(run: { id: string; repo: string; state: string; error: string | null; started_at: string; finished_at: string | null }): Promise<RunRecordView> {
    return {
      run_id: run.id,
      corpus_id: run.repo,
      run_kind: 'index',
      state: run.state as OwnerState,
      error: run.error,
      started_at: run.started_at,
      finished_at: run.finished_at,
      lanes: [],
      not_applicable: {},
      coverage_reasons: ['the run predates saved accounting'],
      estimate: null,
      costs: null,
      label: 'Unavailable',
      corpus_deleted: await this.deps.store.isDeleted(run.repo),
    };
  }
}

export function labelOf(costs: NativeRunCosts): CostsLabel {
  if (costs.state === 'complete') return 'Complete';
  if (costs.state === 'pending') return 'Pending';
  return costs.reasons.some((r) => r.code === 'interrupted_census') ? 'Incomplete · Interrupted' : 'Incomplete';
}
