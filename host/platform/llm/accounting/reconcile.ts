import type { ModelPrice } from '../../config/model/llm.js';
import { priceOf } from './estimate.js';
import type { LedgerRow } from './spend-ledger-client.js';
import type { OwnerState, RunRequestRow } from './run-account-store.js';

export type CostsState = 'complete' | 'pending' | 'incomplete';

/** Why a total is not (yet) complete. Codes are stable; docs/workbench/run-accounting.md lists them. */
export type ReasonCode =
  | 'workers_running'
  | 'ledger_rows_not_landed'
  | 'missing_native_requests'
  | 'interrupted_census'
  | 'uncertain_outcomes'
  | 'unverified_gateway_retry_policy'
  | 'unpriced_usage'
  | 'native_requests_exceed_census'
  | 'native_requests_outside_lanes';

export interface CostReason {
  code: ReasonCode;
  lane?: string;
  detail: string;
}

export interface LaneCensus {
  lane: string;
  /** open (owner running), closed (owner closed its census, nothing in flight), interrupted (owner died). */
  status: 'open' | 'closed' | 'interrupted';
  started: number;
  /** Settled requests (succeeded, failed or uncertain): completed + in_flight = started. */
  completed: number;
  succeeded: number;
  failed: number;
  uncertain: number;
  in_flight: number;
}

export interface LaneCosts {
  lane: string;
  native_rows: number;
  /** Rows the census expects to land: one per completed request. */
  expected_rows: number;
  known_usd: number;
  unpriced_rows: number;
}

/** NativeRunCosts of the spec: the reconciled state, its reasons, and the charges known so far. */
export interface NativeRunCosts {
  state: CostsState;
  reasons: CostReason[];
  /** Sum of the priced native rows; kept when incomplete. */
  known_usd: number;
  /** "$0.00" for a metered zero, "< $0.01" below one cent, else dollars and cents. */
  known_display: string;
  lanes: LaneCosts[];
  native_rows: number;
  reconciled_at: string;
  /**
   * Runs whose kind has a benchmark lane only (answers: generation): the benchmark cost is that
   * lane alone (the sum of its per-model calls); the other lanes (shared retrieval and cache
   * embeddings, rewrite/condense calls) are excluded, and named here so nobody mistakes the
   * figure for the run's total.
   */
  benchmark?: { generation_usd: number; by_model: Record<string, number>; excluded_lanes: string[] };
}

export interface ReconcileInput {
  lanes: string[];
  owner: OwnerState;
  censusClosed: boolean;
  finishedAt: string | null;
  requests: RunRequestRow[];
  rows: LedgerRow[];
  /** The frozen prices of the run (never the current config). */
  prices: Record<string, ModelPrice>;
  settleMs: number;
  now: number;
  /** The lane whose cost alone is the run's benchmark figure (answer generation), when its kind has one. */
  benchmarkLane?: string;
}

export function censusOf(lanes: string[], owner: OwnerState, censusClosed: boolean, requests: RunRequestRow[]): LaneCensus[] {
  return lanes.map((lane) => {
    const mine = requests.filter((r) => r.lane === lane);
    const count = (state: string) => mine.filter((r) => r.state === state).length;
    const inFlight = count('admitted');
    // Only the owner's own close makes a census closed: a dead owner never reconstructs one, and
    // an interrupted owner is never complete (the spec: interrupted owner → incomplete).
    const status = owner === 'running' ? 'open' : owner !== 'interrupted' && censusClosed && inFlight === 0 ? 'closed' : 'interrupted';
    return { lane, status, started: mine.length, completed: count('completed') + count('failed') + count('uncertain'), succeeded: count('completed'), failed: count('failed'), uncertain: count('uncertain'), in_flight: inFlight };
  });
}

export function displayUsd(usd: number, rows: number): string {
  if (usd === 0) return rows ? '$0.00 (metered zero)' : '$0.00';
  if (usd < 0.01) return '< $0.01';
  return `$${usd.toFixed(2)}`;
}

/** Classifies the ledger's rows against the census. Pure: the caller decides what to save. */
export function reconcile(input: ReconcileInput): NativeRunCosts {
  const reasons: CostReason[] = [];
  const census = censusOf(input.lanes, input.owner, input.censusClosed, input.requests);
  const laneCosts: LaneCosts[] = [];
  let knownUsd = 0;
  let pendingRows = false;
  const declared = new Set(input.lanes);
  const stray = input.rows.filter((r) => !declared.has(r.lane ?? ''));
  if (stray.length) reasons.push({ code: 'native_requests_outside_lanes', detail: `${stray.length} ledger row(s) of this run name no declared lane (${[...new Set(stray.map((r) => r.lane ?? 'none'))].join(', ')})` });

  for (const c of census) {
    const lane = c.lane;
    const rows = input.rows.filter((r) => r.lane === lane);
    const mine = input.requests.filter((r) => r.lane === lane);
    const succeeded = rows.filter((r) => r.status !== 'failure');
    const failedRows = rows.filter((r) => r.status === 'failure');
    const completed = mine.filter((r) => r.state === 'completed').length;
    const failed = mine.filter((r) => r.state === 'failed').length;
    let laneUsd = 0;
    let unpriced = 0;
    for (const row of rows) {
      const usd = rowUsd(row, input.prices);
      if (usd === null) unpriced++;
      else laneUsd += usd;
    }
    knownUsd += laneUsd;
    laneCosts.push({ lane, native_rows: rows.length, expected_rows: completed, known_usd: laneUsd, unpriced_rows: unpriced });

    if (c.status === 'open') continue;
    if (c.status === 'interrupted') reasons.push({ code: 'interrupted_census', lane, detail: `the owner of ${lane} stopped before closing its census (${c.in_flight} request(s) in flight, ${c.started} started)` });
    if (c.uncertain) reasons.push({ code: 'uncertain_outcomes', lane, detail: `${c.uncertain} ${lane} request(s) got no answer; the gateway may or may not have served them` });
    if (unpriced) reasons.push({ code: 'unpriced_usage', lane, detail: `${unpriced} ${lane} ledger row(s) carry no spend and their model has no price in the run's frozen price table` });
    // Embedding routes must show gateway retries off (rule 4); any row showing a retry the
    // client never made means the gateway's policy is not ours.
    const retried = rows.filter((r) => (r.attemptedRetries ?? 0) > 0 || (/embedding/.test(r.callType) && (r.maxRetries === undefined || r.maxRetries > 0)));
    if (retried.length) reasons.push({ code: 'unverified_gateway_retry_policy', lane, detail: `${retried.length} ${lane} ledger row(s) do not show gateway retries off (max_retries 0, no attempted retries)` });
    const uncertain = mine.filter((r) => r.state === 'uncertain').length;
    // Uncertain requests may or may not have rows: they widen what the ledger may hold.
    if (succeeded.length > completed + uncertain || failedRows.length > failed + uncertain) {
      reasons.push({ code: 'native_requests_exceed_census', lane, detail: `the ledger holds ${rows.length} ${lane} row(s); the census admitted ${c.started}` });
    } else if (succeeded.length < completed) {
      const missing = completed - succeeded.length;
      const endedAt = input.finishedAt ? Date.parse(input.finishedAt) : input.now;
      if (input.now - endedAt < input.settleMs) pendingRows = true;
      else reasons.push({ code: 'missing_native_requests', lane, detail: `${missing} completed ${lane} request(s) have no ledger row after the settle window` });
    }
  }

  let state: CostsState;
  if (census.some((c) => c.status === 'open')) {
    state = 'pending';
    reasons.unshift({ code: 'workers_running', detail: 'the run is still dispatching requests' });
  } else if (reasons.length) {
    state = 'incomplete';
  } else if (pendingRows) {
    state = 'pending';
    reasons.push({ code: 'ledger_rows_not_landed', detail: 'the gateway has not written every ledger row yet' });
  } else {
    state = 'complete';
  }
  const costs: NativeRunCosts = { state, reasons, known_usd: knownUsd, known_display: displayUsd(knownUsd, input.rows.length), lanes: laneCosts, native_rows: input.rows.length, reconciled_at: new Date(input.now).toISOString() };
  const benchmarkLane = input.benchmarkLane;
  if (benchmarkLane !== undefined && input.lanes.includes(benchmarkLane)) {
    const byModel: Record<string, number> = {};
    for (const row of input.rows.filter((r) => r.lane === benchmarkLane)) byModel[row.model] = (byModel[row.model] ?? 0) + (rowUsd(row, input.prices) ?? 0);
    costs.benchmark = { generation_usd: Object.values(byModel).reduce((a, b) => a + b, 0), by_model: byModel, excluded_lanes: input.lanes.filter((l) => l !== benchmarkLane) };
  }
  return costs;
}

/** A row's USD: the gateway's own spend, else the frozen price of its usage; null when neither. */
function rowUsd(row: LedgerRow, prices: Record<string, ModelPrice>): number | null {
  if (row.spend !== undefined && row.spend > 0) return row.spend;
  if (row.status === 'failure' || row.cacheHit) return 0;
  // The gateway priced it (a cost breakdown): a metered value, zero included.
  if (row.priced) return row.spend ?? 0;
  const tokens = (row.promptTokens ?? 0) + (row.completionTokens ?? 0);
  // A row with usage and no price: priced from the run's own frozen table, or unpriced.
  if (tokens > 0) return priceOf(prices, row.model, row.promptTokens ?? 0, row.completionTokens ?? 0);
  return 0;
}
