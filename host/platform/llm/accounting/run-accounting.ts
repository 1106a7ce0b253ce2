import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import type { ConfigRegistry } from '../../config/registry.js';
import { platformErrors } from '../../errors/platform-errors.js';
import type { CensusSink } from '../gateway-client.js';
import { llmGatewayEndpoint } from '../gateway-endpoint.js';
import { buildEstimate, type Estimate, type LaneQuote } from './estimate.js';
import { censusOf, reconcile, type LaneCensus, type NativeRunCosts } from './reconcile.js';
import type { OwnerState, RunAccountRow, RunAccountStore, RunKind } from './run-account-store.js';
import { LedgerReadError, readSpendLedger } from './spend-ledger-client.js';

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

/** A run as the surface that owns it keeps it durably (an index run of code search). */
export interface OwnedRun {
  id: string;
  corpus_id: string;
  /** running | finished | failed | interrupted */
  state: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** What a surface declares of a kind of run it records. */
export interface RunKindDeclaration {
  /**
   * The owner keeps the run's state in its own durable rows (sweeps and restarts included): that
   * state wins over the record's, and its runs from before accounting read as Unavailable.
   */
  owner?: { get(runId: string): Promise<OwnedRun | undefined>; latest(corpusId: string): Promise<OwnedRun | undefined> };
  /** The lane whose cost alone is the benchmark figure of the run's costs (an answer's generation). */
  benchmarkLane?: string;
}

/** A run to record: its lanes with their quotes (the frozen estimate), and what does not apply. */
export interface OpenRun {
  /** Default: a new UUID. */
  runId?: string;
  corpusId: string;
  runKind: RunKind;
  lanes: Record<string, LaneQuote>;
  notApplicable?: Record<string, string>;
  /** Charges the run may cause that do not go through the LLM gateway and are not attributed. */
  coverageReasons?: string[];
  startedAt?: string;
}

/**
 * Run accounting of every model call made through the LLM gateway: records opened with their
 * frozen estimate, the request census, and reconciliation against the gateway's spend ledger.
 * Pending results are never saved (a pure read); complete and incomplete ones are, with the
 * charges known so far. Surfaces declare the kinds of run they record (`declareKind`).
 */
export class RunAccounting {
  private readonly kinds = new Map<RunKind, RunKindDeclaration>();

  constructor(private readonly deps: { store: RunAccountStore; config: ConfigRegistry; logger: Logger; outbound?: OutboundGuard }) {}

  get store(): RunAccountStore {
    return this.deps.store;
  }

  declareKind(kind: RunKind, declaration: RunKindDeclaration): void {
    if (this.kinds.has(kind)) throw new Error(`run kind "${kind}" is declared twice`);
    this.kinds.set(kind, declaration);
  }

  /** Opens the record of a run with its frozen estimate, before the run dispatches anything. */
  async open(run: OpenRun): Promise<string> {
    const { config } = this.deps;
    const runId = run.runId ?? randomUUID();
    await this.deps.store.create({
      runId,
      corpusId: run.corpusId,
      runKind: run.runKind,
      lanes: Object.keys(run.lanes),
      notApplicable: run.notApplicable ?? {},
      coverageReasons: run.coverageReasons ?? [],
      estimate: buildEstimate(
        { embeddingModel: config.get('EMBEDDING_MODEL'), genModel: config.get('GEN_MODEL'), retryMax: config.get('embedding.embedding_retry_max'), priceTable: config.get('embedding.price_table') },
        run.lanes,
      ),
      ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    });
    return runId;
  }

  /** The census of an in-process run: the LLM client admits each request to it before dispatch. */
  census(runId: string): CensusSink {
    return this.deps.store.sink(runId);
  }

  /** The owner's end of an in-process run: its census closed (all settled), then its record ended. */
  async close(runId: string, state: Exclude<OwnerState, 'running'>, error: string | null = null, result?: unknown): Promise<void> {
    await this.deps.store.closeCensus(runId);
    await this.deps.store.finish(runId, state, error, result);
  }

  /** One run of a corpus, or a 404 (a run of another corpus is not found here either). */
  async view(corpusId: string, runId: string): Promise<RunRecordView> {
    const row = await this.deps.store.get(runId);
    if (row && row.corpus_id === corpusId) return this.toView(row);
    const owned = await this.ownedRun(runId);
    if (owned && owned.run.corpus_id === corpusId) return this.unavailable(owned.run, owned.kind);
    throw platformErrors.error('run_not_found', { reason: `no run ${runId} of corpus "${corpusId}"` });
  }

  async latest(corpusId: string, runKind: RunKind, finalize: boolean): Promise<RunRecordView> {
    if (await this.deps.store.isDeleted(corpusId)) throw platformErrors.error('corpus_deleted', { corpus: corpusId, hint: 'its runs stay readable by id' });
    const row = await this.deps.store.latest(corpusId, runKind);
    if (!row) {
      const owned = await this.kinds.get(runKind)?.owner?.latest(corpusId);
      if (owned) return this.unavailable(owned, runKind);
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
      ...this.benchmarkOf(row.run_kind),
    });
    if (costs.state === 'pending') return { ...(await this.toView(row)), costs, label: labelOf(costs) };
    await this.deps.store.saveCosts(runId, costs);
    return this.toView({ ...row, costs: JSON.stringify(costs) });
  }

  /** The owner's state: from its own durable row when its kind has an owner (sweeps and restarts included). */
  private async ownerState(row: RunAccountRow): Promise<{ state: OwnerState; finishedAt: string | null; error: string | null }> {
    const run = await this.kinds.get(row.run_kind)?.owner?.get(row.run_id);
    if (run) return { state: run.state as OwnerState, finishedAt: run.finished_at, error: run.error };
    return { state: row.state as OwnerState, finishedAt: row.finished_at, error: row.error };
  }

  /** A run of an owner that declared one, by id, whatever its kind. */
  private async ownedRun(runId: string): Promise<{ run: OwnedRun; kind: RunKind } | undefined> {
    for (const [kind, declaration] of this.kinds) {
      const run = await declaration.owner?.get(runId);
      if (run) return { run, kind };
    }
    return undefined;
  }

  private benchmarkOf(kind: RunKind): { benchmarkLane?: string } {
    const lane = this.kinds.get(kind)?.benchmarkLane;
    return lane === undefined ? {} : { benchmarkLane: lane };
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

  /** An owned run from before accounting was saved: readable, its costs Unavailable. */
  private async unavailable(run: OwnedRun, kind: RunKind): Promise<RunRecordView> {
    return {
      run_id: run.id,
      corpus_id: run.corpus_id,
      run_kind: kind,
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
      corpus_deleted: await this.deps.store.isDeleted(run.corpus_id),
    };
  }
}

export function labelOf(costs: NativeRunCosts): CostsLabel {
  if (costs.state === 'complete') return 'Complete';
  if (costs.state === 'pending') return 'Pending';
  return costs.reasons.some((r) => r.code === 'interrupted_census') ? 'Incomplete · Interrupted' : 'Incomplete';
}
