import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reconcile, type ReconcileInput } from '../../../../../host/platform/llm/accounting/reconcile.js';
import type { RunRequestRow } from '../../../../../host/platform/llm/accounting/run-account-store.js';
import type { LedgerRow } from '../../../../../host/platform/llm/accounting/spend-ledger-client.js';

// Each test breaks one rule of reconcile() and names the reason it must give: removing a rule
// from reconcile.ts fails the test of that rule.

const NOW = Date.parse('2030-01-01T12:00:00Z');
const PRICES = { 'emb-small': { input_per_1m: 0.02, output_per_1m: 0 }, 'gen-1': { input_per_1m: 0.15, output_per_1m: 0.6 } };
let seq = 0;

function request(lane: string, state: RunRequestRow['state'] = 'completed', model = 'gen-1'): RunRequestRow {
  seq++;
  return { id: `req-${seq}`, run_id: 'run-1', lane, model, state, http_status: state === 'completed' ? 200 : null, input_tokens: 10, output_tokens: 5, admitted_at: NOW - 60_000, settled_at: state === 'admitted' ? null : NOW - 59_000 };
}

function row(lane: string | undefined, extra: Partial<LedgerRow> = {}): LedgerRow {
  seq++;
  return { requestId: `row-${seq}`, callType: 'acompletion', sessionId: 'run-1', lane, model: 'gen-1', status: 'success', spend: 0.001, priced: true, cacheHit: false, promptTokens: 10, completionTokens: 5, ...extra } as LedgerRow;
}

/** A finished run of one lane, its census closed, one request and its ledger row: complete. */
function input(over: Partial<ReconcileInput> = {}): ReconcileInput {
  return {
    lanes: ['schema_proposal'],
    owner: 'finished',
    censusClosed: true,
    finishedAt: new Date(NOW - 3_600_000).toISOString(),
    requests: [request('schema_proposal')],
    rows: [row('schema_proposal')],
    prices: PRICES,
    settleMs: 300_000,
    now: NOW,
    ...over,
  };
}
const codes = (i: ReconcileInput) => reconcile(i).reasons.map((r) => r.code);

test('the baseline: closed census, every request on the ledger, priced: complete with the known total', () => {
  const costs = reconcile(input());
  assert.is(costs.state, 'complete', JSON.stringify(costs.reasons));
  assert.equal(costs.reasons, []);
  assert.is(costs.known_usd, 0.001);
  assert.is(costs.known_display, '< $0.01');
  assert.equal(costs.lanes, [{ lane: 'schema_proposal', native_rows: 1, expected_rows: 1, known_usd: 0.001, unpriced_rows: 0 }]);
  assert.is(costs.reconciled_at, new Date(NOW).toISOString());
});

test('an owner still running: pending (workers_running), whatever the ledger holds', () => {
  const costs = reconcile(input({ owner: 'running', censusClosed: false }));
  assert.is(costs.state, 'pending');
  assert.equal(costs.reasons.map((r) => r.code), ['workers_running']);
});

test('an interrupted owner is never complete, even with its census closed and nothing in flight', () => {
  const costs = reconcile(input({ owner: 'interrupted' }));
  assert.is(costs.state, 'incomplete');
  assert.ok(costs.reasons.some((r) => r.code === 'interrupted_census'), JSON.stringify(costs.reasons));
});

test('an owner that ended without closing its census leaves the lane interrupted (never reconstructed as closed)', () => {
  for (const owner of ['finished', 'failed'] as const) {
    const costs = reconcile(input({ owner, censusClosed: false }));
    assert.is(costs.state, 'incomplete', owner);
    assert.equal(costs.reasons.map((r) => r.code), ['interrupted_census'], owner);
  }
});

test('a request still in flight under a closed census is interrupted', () => {
  const costs = reconcile(input({ requests: [request('schema_proposal'), request('schema_proposal', 'admitted')] }));
  assert.is(costs.state, 'incomplete');
  assert.ok(codes(input({ requests: [request('schema_proposal'), request('schema_proposal', 'admitted')] })).includes('interrupted_census'));
});

test('an uncertain outcome makes the total incomplete', () => {
  const i = input({ requests: [request('schema_proposal'), request('schema_proposal', 'uncertain')] });
  assert.is(reconcile(i).state, 'incomplete');
  assert.equal(codes(i), ['uncertain_outcomes']);
});

test('a row with usage, no spend and no frozen price is unpriced; with a frozen price it is priced from the run\'s table', () => {
  const unpriced = input({ rows: [row('schema_proposal', { model: 'gen-unknown', spend: undefined, priced: false, promptTokens: 1000, completionTokens: 0 })] });
  assert.equal(codes(unpriced), ['unpriced_usage']);
  assert.is(reconcile(unpriced).lanes[0]!.unpriced_rows, 1);
  const frozen = reconcile(input({ rows: [row('schema_proposal', { spend: undefined, priced: false, promptTokens: 1_000_000, completionTokens: 0 })] }));
  assert.is(frozen.state, 'complete');
  assert.is(frozen.known_usd, 0.15);
});

test('an embedding row that does not show gateway retries off is an unverified retry policy', () => {
  const lanes = ['index_embeddings'];
  const requests = [request('index_embeddings', 'completed', 'emb-small')];
  const ok = input({ lanes, requests, rows: [row('index_embeddings', { callType: 'aembedding', model: 'emb-small', maxRetries: 0, attemptedRetries: 0 })] });
  assert.is(reconcile(ok).state, 'complete', JSON.stringify(reconcile(ok).reasons));
  assert.equal(codes(input({ lanes, requests, rows: [row('index_embeddings', { callType: 'aembedding', model: 'emb-small' })] })), ['unverified_gateway_retry_policy']);
  assert.equal(codes(input({ lanes, requests, rows: [row('index_embeddings', { callType: 'aembedding', model: 'emb-small', maxRetries: 0, attemptedRetries: 1 })] })), ['unverified_gateway_retry_policy']);
});

test('more ledger rows than the census admitted', () => {
  const i = input({ rows: [row('schema_proposal'), row('schema_proposal')] });
  assert.is(reconcile(i).state, 'incomplete');
  assert.equal(codes(i), ['native_requests_exceed_census']);
  // An uncertain request may or may not have its row: one more row is within the census then.
  assert.equal(codes(input({ requests: [request('schema_proposal'), request('schema_proposal', 'uncertain')], rows: [row('schema_proposal'), row('schema_proposal')] })), ['uncertain_outcomes']);
});

test('a missing row is pending inside the settle window, missing after it', () => {
  const recent = reconcile(input({ rows: [], finishedAt: new Date(NOW - 1000).toISOString() }));
  assert.is(recent.state, 'pending');
  assert.equal(recent.reasons.map((r) => r.code), ['ledger_rows_not_landed']);
  const late = reconcile(input({ rows: [], finishedAt: new Date(NOW - 600_000).toISOString() }));
  assert.is(late.state, 'incomplete');
  assert.equal(late.reasons.map((r) => r.code), ['missing_native_requests']);
});

test('ledger rows naming no declared lane', () => {
  const i = input({ rows: [row('schema_proposal'), row('somewhere_else')] });
  assert.is(reconcile(i).state, 'incomplete');
  assert.equal(codes(i), ['native_requests_outside_lanes']);
});

test('a failed request has its failure row; a failure row beyond the census is counted', () => {
  const failed = input({ requests: [request('schema_proposal', 'failed')], rows: [row('schema_proposal', { status: 'failure', spend: 0 })] });
  assert.is(reconcile(failed).state, 'complete', JSON.stringify(reconcile(failed).reasons));
  assert.equal(codes(input({ requests: [request('schema_proposal')], rows: [row('schema_proposal'), row('schema_proposal', { status: 'failure', spend: 0 })] })), ['native_requests_exceed_census']);
});

test('metered zero and sub-cent totals read apart; a kind with a benchmark lane carries its lane-only benchmark', () => {
  assert.is(reconcile(input({ rows: [row('schema_proposal', { spend: 0 })] })).known_display, '$0.00 (metered zero)');
  const lanes = ['retrieval_embeddings', 'answer_generation'];
  const answer = input({
    lanes,
    requests: [request('retrieval_embeddings', 'completed', 'emb-small'), request('answer_generation')],
    rows: [row('retrieval_embeddings', { callType: 'aembedding', model: 'emb-small', maxRetries: 0, spend: 0.0001 }), row('answer_generation', { spend: 0.02 })],
  });
  const costs = reconcile({ ...answer, benchmarkLane: 'answer_generation' });
  assert.is(costs.state, 'complete', JSON.stringify(costs.reasons));
  assert.equal(costs.benchmark, { generation_usd: 0.02, by_model: { 'gen-1': 0.02 }, excluded_lanes: ['retrieval_embeddings'] });
  assert.is(costs.known_display, '$0.02');
  assert.is(reconcile(answer).benchmark, undefined, 'no benchmark lane declared: no benchmark figure');
});

test.run();
