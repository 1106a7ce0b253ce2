import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { startLlmGatewayFake, sendJson, type LlmGatewayFake } from '../../../../fakes/llm-gateway-fake.js';
import { bigRepo, smallRepo, startRun, statusOf, waitForRun, writeRepoFile } from '../../search/search-repo-fixture.js';
import { GATEWAY_KEY, accountingEnv, accountingSettings, codes, latestRun, reconcileRun, runRecord } from './accounting-fixture.js';

const repos = { done: smallRepo(), held: smallRepo(), lost: smallRepo(), odd: smallRepo(), kg: smallRepo(), gone: smallRepo(), big: bigRepo(300) };
let fake: LlmGatewayFake;
let gw: TestGateway;

test.before(async () => {
  fake = await startLlmGatewayFake({ apiKey: GATEWAY_KEY });
  gw = await startGateway(accountingEnv(repos));
  await applied(accountingSettings(fake.url));
});
test.after(async () => {
  await gw.close();
  await fake.close();
  for (const dir of Object.values(repos)) removeDir(dir);
});

async function applied(patch: Record<string, unknown>): Promise<void> {
  const result = await gw.gateway.config.update(patch);
  assert.equal(result.envOverridden, [], 'the environment does not override these settings');
}
const setting = applied;

async function indexed(repo: string, body: Record<string, unknown> = {}): Promise<string> {
  const started = await startRun(gw.url, { repo, ...body });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const status = await waitForRun(gw.url, repo);
  assert.is(status.run.state, 'finished', status.status.join('\n'));
  return started.body.id;
}

test('a run that completes: census = ledger, every dispatch stamped, sub-cent spend below one cent, estimate frozen', async () => {
  fake.ledger.metadataAsString = true; // some gateways answer metadata as a JSON string
  const runId = await indexed('done');
  fake.ledger.metadataAsString = false;
  const embeds = fake.requests.filter((r) => r.path === '/v1/embeddings' && r.headers['x-gateway-session-id'] === runId);
  assert.ok(embeds.length >= 3, `embedding requests: ${embeds.length}`);
  for (const r of embeds) {
    assert.is(r.headers['x-gateway-spend-logs-metadata'], `{"corpus_id":"done","lane":"index_embeddings","run_id":"${runId}"}`);
    assert.is(r.body.num_retries, 0);
    assert.is(r.body.max_retries, 0);
  }
  const before = (await runRecord(gw.url, 'done', runId)).body;
  assert.is(before.costs, null, 'nothing reconciled yet');
  const lane = before.lanes.find((l: any) => l.lane === 'index_embeddings');
  assert.equal([lane.status, lane.started, lane.completed, lane.in_flight], ['closed', embeds.length, embeds.length, 0]);
  assert.is(before.not_applicable.semantic_kg, 'the run does not enrich (enrich: false)');
  assert.ok(before.not_applicable.figure_description);
  const rec = await reconcileRun(gw.url, 'done', runId);
  assert.is(rec.status, 200);
  assert.is(rec.body.costs.state, 'complete', JSON.stringify(rec.body.costs.reasons));
  assert.is(rec.body.label, 'Complete');
  assert.is(rec.body.costs.native_rows, embeds.length);
  assert.ok(rec.body.costs.known_usd > 0 && rec.body.costs.known_usd < 0.01);
  assert.is(rec.body.costs.known_display, '< $0.01');
  const read = fake.ledger.reads.at(-1)!;
  assert.is(read.get('session_id'), runId);
  assert.ok(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(read.get('start_date')!), read.get('start_date')!);
  // The estimate stays what the run started with, whatever the price table says later.
  const quoted = before.estimate;
  assert.equal(quoted.config.prices['emb-small'], { input_per_1m: 0.02, output_per_1m: 0 });
  assert.ok(quoted.lanes.index_embeddings.usd > 0);
  await setting({ 'embedding.price_table': { 'emb-small': { input_per_1m: 99 } } });
  const after = (await runRecord(gw.url, 'done', runId)).body;
  assert.equal(after.estimate, quoted);
  assert.is(after.costs.state, 'complete', 'the saved result is kept');
  await setting({ 'embedding.price_table': { 'emb-small': { input_per_1m: 0.02 } } });
});

test('pending while ledger rows have not landed (a pure read), then complete once they land', async () => {
  fake.ledger.hold();
  const runId = await indexed('held');
  const pending = await reconcileRun(gw.url, 'held', runId);
  assert.is(pending.body.costs.state, 'pending');
  assert.is(pending.body.label, 'Pending');
  assert.equal(codes(pending.body), ['ledger_rows_not_landed']);
  assert.is((await runRecord(gw.url, 'held', runId)).body.costs, null, 'a pending reconciliation saves nothing');
  fake.ledger.release();
  const done = await reconcileRun(gw.url, 'held', runId);
  assert.is(done.body.costs.state, 'complete', JSON.stringify(done.body.costs.reasons));
});

test('a killed indexer (SIGKILL of the child) leaves the lane interrupted, never complete; known charges stay', async () => {
  await setting({ 'accounting.ledger_settle_s': 0 });
  // Two embedding requests are answered, the rest wait unanswered: the run cannot finish before
  // the kill however fast or slow the machine is.
  const embed = fake.handler('POST', '/v1/embeddings')!;
  let answered = 0;
  fake.route('POST', '/v1/embeddings', (req, res) => (++answered <= 2 ? embed(req, res) : undefined));
  let status;
  let runId: string;
  try {
    const started = await startRun(gw.url, { repo: 'big' });
    assert.is(started.status, 202, JSON.stringify(started.body));
    runId = started.body.id;
    const failed = (what: string) => (err: Error): never => {
      throw new Error(`${what}: ${err.message}`);
    };
    const pid = await until(() => gw.gateway.surfaces.search.runs.childPid(runId), 60_000, 5).catch(failed('the indexer child never showed its pid'));
    await until(async () => ((await latestRun(gw.url, 'big', '?finalize=false')).body.lanes?.[0]?.completed ?? 0) >= 2 || undefined, 60_000, 20).catch(
      failed('the lane never showed its two answered requests completed'),
    );
    const running = await reconcileRun(gw.url, 'big', runId);
    assert.is(running.body.state, 'running');
    assert.is(running.body.costs.state, 'pending');
    assert.is(codes(running.body)[0], 'workers_running');
    process.kill(pid, 'SIGKILL');
    status = await waitForRun(gw.url, 'big');
  } finally {
    fake.route('POST', '/v1/embeddings', embed);
  }
  assert.is(status.run.state, 'failed');
  const record = (await runRecord(gw.url, 'big', runId)).body;
  const lane = record.lanes[0];
  assert.is(lane.status, 'interrupted');
  assert.is(lane.completed + lane.in_flight, lane.started);
  const rec = await reconcileRun(gw.url, 'big', runId);
  assert.is(rec.body.costs.state, 'incomplete');
  assert.ok(codes(rec.body).includes('interrupted_census'), codes(rec.body).join());
  assert.is(rec.body.label, 'Incomplete · Interrupted');
  assert.ok(rec.body.costs.known_usd > 0, 'known charges stay on the record');
  await setting({ 'accounting.ledger_settle_s': 300 });
});

test('a ledger row that never lands makes the run incomplete with missing_native_requests after the settle window', async () => {
  await setting({ 'accounting.ledger_settle_s': 0 });
  fake.ledger.dropNext(1);
  const runId = await indexed('lost');
  const rec = await reconcileRun(gw.url, 'lost', runId);
  assert.is(rec.body.costs.state, 'incomplete');
  assert.equal(codes(rec.body), ['missing_native_requests']);
  assert.is(rec.body.label, 'Incomplete');
  assert.ok(rec.body.costs.known_usd > 0);
  const saved = (await runRecord(gw.url, 'lost', runId)).body;
  assert.is(saved.costs.state, 'incomplete', 'final results are saved');
  await setting({ 'accounting.ledger_settle_s': 300 });
});

test('gateway retries, unpriced usage, uncertain outcomes and stray rows each make a run incomplete with their reason', async () => {
  const own = await startLlmGatewayFake({ apiKey: GATEWAY_KEY });
  await setting({ 'accounting.ledger_settle_s': 0, 'embedding.price_table': {}, LLM_GATEWAY_URL: own.url });
  own.ledger.defaultPrice = null;
  own.ledger.retryNext(2);
  // One attempt whose connection drops: the census cannot know whether the gateway served it.
  let dropped = false;
  const normal = own.route.bind(own);
  const original = (req: any, res: any) => sendJson(res, 200, { object: 'list', model: req.body.model, data: (req.body.input as string[]).map((_t, index) => ({ object: 'embedding', index, embedding: [1, 0, 0] })), usage: { prompt_tokens: 3, total_tokens: 3 } });
  normal('POST', '/v1/embeddings', (req, res) => {
    if (!dropped && req.headers['x-gateway-session-id']) {
      dropped = true;
      res.socket?.destroy();
      return;
    }
    original(req, res);
  });
  try {
    const runId = await indexed('odd');
    await fetch(`${own.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json', 'x-gateway-session-id': runId, 'x-gateway-spend-logs-metadata': JSON.stringify({ corpus_id: 'odd', lane: 'elsewhere', run_id: runId }) },
      body: JSON.stringify({ model: 'emb-small', input: ['x'], max_retries: 0 }),
    });
    const rec = await reconcileRun(gw.url, 'odd', runId);
    const found = codes(rec.body);
    for (const code of ['uncertain_outcomes', 'unpriced_usage', 'unverified_gateway_retry_policy', 'native_requests_exceed_census', 'native_requests_outside_lanes']) assert.ok(found.includes(code), `${code} in ${found.join()}`);
    assert.is(rec.body.costs.state, 'incomplete');
    assert.is(rec.body.lanes[0].uncertain, 1);
  } finally {
    await setting({ LLM_GATEWAY_URL: fake.url, 'accounting.ledger_settle_s': 300, 'embedding.price_table': { 'emb-small': { input_per_1m: 0.02 }, 'gen-1': { input_per_1m: 0.15, output_per_1m: 0.6 } } });
    await own.close();
  }
});

test('a metered zero reads $0.00, distinct from a sub-cent spend; a failing ledger read is "Check failed"; a run before accounting is "Unavailable"', async () => {
  const { displayUsd } = await import('../../../../../host/platform/llm/accounting/reconcile.js');
  assert.is(displayUsd(0, 3), '$0.00 (metered zero)');
  assert.is(displayUsd(0.004, 3), '< $0.01');
  assert.is(displayUsd(1.5, 3), '$1.50');
  const runId = (await latestRun(gw.url, 'done', '?finalize=false')).body.run_id;
  const own = await startLlmGatewayFake({ apiKey: GATEWAY_KEY });
  await setting({ LLM_GATEWAY_URL: own.url });
  own.route('GET', '/spend/logs/v2', (_req, res) => sendJson(res, 503, { error: { message: 'ledger down' } }));
  const failed = await reconcileRun(gw.url, 'done', runId);
  assert.is(failed.status, 200);
  assert.is(failed.body.label, 'Check failed');
  assert.match(failed.body.check_error, /HTTP 503/);
  own.route('GET', '/spend/logs/v2', (_req, res) => sendJson(res, 200, { data: [{ request_id: 'x', metadata: 'y'.repeat(5000) }], total: 1 }));
  await setting({ 'accounting.ledger_max_page_bytes': 1024 });
  const big = await reconcileRun(gw.url, 'done', runId);
  assert.match(big.body.check_error, /larger than 1024 bytes/);
  await setting({ 'accounting.ledger_max_page_bytes': 1024 * 1024, LLM_GATEWAY_URL: fake.url });
  await own.close();
  assert.is((await runRecord(gw.url, 'done', runId)).body.costs.state, 'complete', 'a failed check keeps the saved costs');
  const legacy = await gw.gateway.surfaces.search.runStore.create('kg', false);
  await gw.gateway.surfaces.search.runStore.finish(legacy.id, 'finished', null);
  const old = await runRecord(gw.url, 'kg', legacy.id);
  assert.is(old.status, 200);
  assert.is(old.body.label, 'Unavailable');
  assert.is(old.body.costs, null);
});

test('enrich with GEN_MODEL: one semantic_kg chat call per chunk, through the census, reconciled complete', async () => {
  await setting({ GEN_MODEL: 'gen-1' });
  const fresh = await startLlmGatewayFake({ apiKey: GATEWAY_KEY });
  await setting({ LLM_GATEWAY_URL: fresh.url });
  try {
    fresh.defaultChat = '{"entities":["ReloadQueue"],"relations":[]}';
    const runId = await indexed('kg', { enrich: true });
    const record = (await runRecord(gw.url, 'kg', runId)).body;
    const kg = record.lanes.find((l: any) => l.lane === 'semantic_kg');
    assert.ok(kg, JSON.stringify(record));
    const chats = fresh.chats().filter((r) => r.headers['x-gateway-session-id'] === runId);
    assert.ok(chats.length > 0);
    assert.is(kg.started, chats.length);
    for (const c of chats) assert.is(JSON.parse(String(c.headers['x-gateway-spend-logs-metadata'])).lane, 'semantic_kg');
    const rec = await reconcileRun(gw.url, 'kg', runId);
    assert.is(rec.body.costs.state, 'complete', JSON.stringify(rec.body.costs.reasons));

    // Schema proposal: one call, saved; a failed one is saved too.
    fresh.replyWith('{"entities":[{"name":"Queue","description":"a reload queue"}],"relations":[]}');
    const proposal = await fetch(`${gw.url}/api/index/kg/schema-proposal`, { method: 'POST' });
    assert.is(proposal.status, 201);
    const made = await json(proposal);
    assert.is(made.state, 'finished');
    assert.is(made.result.proposal.entities[0].name, 'Queue');
    assert.is(made.lanes[0].lane, 'schema_proposal');
    assert.is(made.lanes[0].started, 1);
    const latest = await latestRun(gw.url, 'kg', '?run_kind=schema_proposal&finalize=false');
    assert.is(latest.body.run_id, made.run_id);
    assert.is(latest.body.costs, null, 'finalize=false is a pure read');
    const finalized = await latestRun(gw.url, 'kg', '?run_kind=schema_proposal');
    assert.is(finalized.body.costs.state, 'complete', JSON.stringify(finalized.body.costs?.reasons));
    fresh.replyWith({ status: 400 });
    const failed = await json(await fetch(`${gw.url}/api/index/kg/schema-proposal`, { method: 'POST' }));
    assert.is(failed.state, 'failed');
    assert.match(failed.result.error, /HTTP 400/);
    assert.is((await runRecord(gw.url, 'kg', failed.run_id)).body.state, 'failed');
  } finally {
    await setting({ LLM_GATEWAY_URL: fake.url, GEN_MODEL: '' });
    await fresh.close();
  }
  const without = await json(await fetch(`${gw.url}/api/index/kg/schema-proposal`, { method: 'POST' }));
  assert.is(without.state, 'failed');
  assert.ok(without.not_applicable.schema_proposal);
});

test('deleting a corpus keeps its runs readable by id; current-state reads answer 404 until it is indexed again', async () => {
  const runId = await indexed('gone');
  const del = await fetch(`${gw.url}/api/index/gone`, { method: 'DELETE' });
  assert.is(del.status, 200);
  assert.equal(await json(del), { corpus_id: 'gone', deleted: true });
  const status = await fetch(`${gw.url}/api/index/status?repo=gone`);
  assert.is(status.status, 404);
  assert.is((await latestRun(gw.url, 'gone')).status, 404);
  const kept = await runRecord(gw.url, 'gone', runId);
  assert.is(kept.status, 200);
  assert.is(kept.body.corpus_deleted, true);
  assert.is(kept.body.run_id, runId);
  assert.is((await runRecord(gw.url, 'done', runId)).status, 404, 'a run is found under its own corpus only');
  assert.is((await fetch(`${gw.url}/api/index/nope/runs/${runId}`)).status, 404);
  assert.is((await fetch(`${gw.url}/api/index/${encodeURIComponent('../x')}/runs/latest`)).status, 400);
  writeRepoFile(repos.gone, 'src/new.ts', 'export const again = 1;\n');
  await indexed('gone');
  assert.is((await statusOf(gw.url, 'gone')).run.state, 'finished');
});

test('answers: every lane through the census; an exact cache hit is recorded as zero requests; benchmark cost is generation only', async () => {
  const ask = async () => json(await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'how are reload requests coalesced', repo: 'done' }) }));
  const first = await ask();
  assert.ok(first.run_id, JSON.stringify(first));
  const a = (await runRecord(gw.url, 'done', first.run_id)).body;
  assert.is(a.run_kind, 'answer');
  const lane = (r: any, name: string) => r.lanes.find((l: any) => l.lane === name);
  const sent = fake.requests.filter((r) => r.headers['x-gateway-session-id'] === first.run_id);
  assert.is(lane(a, 'retrieval_embeddings').started + lane(a, 'cache_embeddings').started + lane(a, 'answer_generation').started, sent.length);
  assert.ok(lane(a, 'retrieval_embeddings').started >= 1);
  assert.is(lane(a, 'cache_embeddings').started, 1);
  assert.is((await reconcileRun(gw.url, 'done', first.run_id)).body.costs.state, 'complete');
  const before = fake.requests.length;
  const second = await ask();
  assert.is.not(second.run_id, first.run_id);
  assert.is(fake.requests.length - before, 0, 'a cache hit dispatches nothing');
  const b = (await reconcileRun(gw.url, 'done', second.run_id)).body;
  for (const l of b.lanes) assert.is(l.started, 0, l.lane);
  assert.is(b.costs.state, 'complete', JSON.stringify(b.costs.reasons));
  assert.is(b.costs.native_rows, 0);
  assert.is(b.costs.known_display, '$0.00');
  assert.is(b.costs.benchmark.generation_usd, 0);
  assert.ok(b.costs.benchmark.excluded_lanes.includes('retrieval_embeddings'));
  assert.ok(b.costs.benchmark.excluded_lanes.includes('cache_embeddings'));
});

test('a complete semantic-cache hit is recorded as zero requests in every lane', async () => {
  const ask = async (question: string) => json(await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question, repo: 'done' }) }));
  const lane = (r: any, name: string) => r.lanes.find((l: any) => l.lane === name);
  // A close question: its fingerprint is embedded once (cache_embeddings), then it hits.
  const near = await ask('how are the reload requests coalesced?');
  const n = (await runRecord(gw.url, 'done', near.run_id)).body;
  assert.is(lane(n, 'cache_embeddings').started, 1);
  assert.is(lane(n, 'answer_generation').started, 0);
  const before = fake.requests.length;
  const again = await ask('how are the reload requests coalesced?');
  assert.is(again.answer, near.answer);
  assert.is(fake.requests.length - before, 0, 'a complete hit dispatches nothing');
  const record = (await reconcileRun(gw.url, 'done', again.run_id)).body;
  for (const l of record.lanes) assert.is(l.started, 0, l.lane);
  assert.is(record.costs.state, 'complete', JSON.stringify(record.costs.reasons));
  assert.is(record.costs.native_rows, 0);
});

test('a current-state search, answer or chat of a deleted corpus answers 404 until it is indexed again', async () => {
  await indexed('gone');
  assert.is((await fetch(`${gw.url}/api/search?repo=gone&q=reload`)).status, 200);
  assert.is((await fetch(`${gw.url}/api/index/gone`, { method: 'DELETE' })).status, 200);
  const search = await fetch(`${gw.url}/api/search?repo=gone&q=reload`);
  assert.is(search.status, 404);
  const body = await json(search);
  assert.is(body.code, 'corpus_deleted');
  assert.match(body.detail, /gone/);
  const rag = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'reload', repo: 'gone' }) });
  assert.is(rag.status, 404);
  assert.is((await json(rag)).code, 'corpus_deleted');
  await indexed('gone');
  assert.is((await fetch(`${gw.url}/api/search?repo=gone&q=reload`)).status, 200);
});

test('schema proposals: a body other than {} is refused; concurrent calls for a corpus share one run and one LLM call', async () => {
  await setting({ GEN_MODEL: 'gen-1' });
  try {
    const propose = (init: RequestInit = {}) => fetch(`${gw.url}/api/index/kg/schema-proposal`, { method: 'POST', ...init });
    let res = await propose({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'x' }) });
    assert.is(res.status, 422);
    assert.is((await json(res)).code, 'validation_error');
    // Not JSON at all: refused before the route runs (the platform's content-type rule).
    res = await propose({ headers: { 'content-type': 'text/plain' }, body: 'propose please' });
    assert.is(res.status, 415);
    assert.is((await json(res)).code, 'unsupported_media_type');
    res = await propose({ headers: { 'content-type': 'application/json' }, body: '[1,' });
    assert.is(res.status, 400);
    fake.replyWith({ delayMs: 400, text: '{"entities":[],"relations":[]}' });
    const chatsBefore = fake.requests.filter((r) => r.path === '/v1/chat/completions').length;
    const answers = await Promise.all([propose(), propose({ headers: { 'content-type': 'application/json' }, body: '{}' }), propose()]);
    const views = await Promise.all(answers.map((r) => json(r)));
    for (const r of answers) assert.is(r.status, 201);
    assert.is(new Set(views.map((v) => v.run_id)).size, 1, 'one run for the three calls');
    assert.is(fake.requests.filter((r) => r.path === '/v1/chat/completions').length - chatsBefore, 1, 'one LLM call');
  } finally {
    await setting({ GEN_MODEL: '' });
  }
});

test('every run-accounting route is in /openapi.json with its schemas', async () => {
  const spec = await json(await fetch(`${gw.url}/openapi.json`));
  for (const [p, method] of [
    ['/api/index/{corpus_id}/runs/latest', 'get'],
    ['/api/index/{corpus_id}/runs/{run_id}', 'get'],
    ['/api/index/{corpus_id}/runs/{run_id}/costs/reconcile', 'post'],
    ['/api/index/{corpus_id}/schema-proposal', 'post'],
    ['/api/index/{corpus_id}', 'delete'],
  ] as const) {
    const op = spec.paths[p]?.[method];
    assert.ok(op, `${method} ${p}`);
    assert.ok(Object.keys(op.responses).includes('404'), `${method} ${p} documents 404`);
  }
});

test.run();
