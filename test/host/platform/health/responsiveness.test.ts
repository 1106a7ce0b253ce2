import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { performance } from 'node:perf_hooks';
import { json, removeDir, startGateway, until, type TestGateway } from '../../../support/gateway.js';
import { startLlmGatewayFake, type LlmGatewayFake } from '../../../fakes/llm-gateway-fake.js';
import { startSystemOneFake } from '../../../fakes/system-one-fake.js';
import { bigRepo, waitForRun } from '../../surfaces/search/search-repo-fixture.js';

// /health must stay quick while the heaviest request of each surface runs. Figures are relative
// to this machine's own pace: the idle /health latency measured here, times a generous factor,
// with an absolute floor so a loaded machine does not fail it. A request that holds the event
// loop for seconds (2,000 evaluation questions searched back to back) is far above both.
const FACTOR = 30;
const FLOOR_MS = 750;

const big = bigRepo(600);
let gw: TestGateway;
let llm: LlmGatewayFake;
let judge: Awaited<ReturnType<typeof startSystemOneFake>>;
let allowedMs = 0;

const post = (p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

async function healthMs(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${gw.url}/health`);
  await res.arrayBuffer();
  assert.is(res.status, 200);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Probes /health back to back while `work` runs; returns the slowest probe and how many ran. */
async function whileRunning(work: () => Promise<unknown>): Promise<{ slowest: number; probes: number }> {
  let done = false;
  const running = work().finally(() => (done = true));
  const seen: number[] = [];
  while (!done) {
    seen.push(await healthMs());
    await new Promise((r) => setTimeout(r, 5));
  }
  await running;
  return { slowest: Math.max(0, ...seen), probes: seen.length };
}

function assertResponsive(what: string, result: { slowest: number; probes: number }): void {
  assert.ok(result.probes >= 1, `${what}: /health was probed while it ran`);
  assert.ok(result.slowest <= allowedMs, `${what}: /health took ${Math.round(result.slowest)} ms at worst while it ran (allowed ${Math.round(allowedMs)} ms)`);
}

test.before(async () => {
  llm = await startLlmGatewayFake();
  judge = await startSystemOneFake();
  gw = await startGateway(
    {
      REPOS: JSON.stringify({ big }),
      REPO: 'big',
      EVAL_SYNC_MAX_QUESTIONS: '2000',
      LLM_GATEWAY_URL: llm.url,
      GEN_MODEL: 'gen-1',
      SYSTEM_ONE__HOSTED_URL: judge.url,
      HOSTED_JUDGE_API_KEY: 'k',
    },
    { watch: false },
  );
  const { runs } = gw.gateway.surfaces.search;
  await runs.settled((await runs.start('big', false)).id);
  await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted')?.state === 'active', 20_000);
  // The idle pace of this machine, after a warm-up.
  for (let i = 0; i < 5; i++) await healthMs();
  const idle: number[] = [];
  for (let i = 0; i < 30; i++) idle.push(await healthMs());
  allowedMs = Math.max(FLOOR_MS, median(idle) * FACTOR);
});
test.after(async () => {
  await gw?.close();
  await llm?.close();
  await judge?.close();
  removeDir(big);
});

test('evaluation: 2,000 questions answered synchronously', async () => {
  const golden = Array.from({ length: 2000 }, (_, i) => ({ q: `handler${i % 600} input number ${i}`, expect_paths: [`module${i % 600}.ts`] }));
  const result = await whileRunning(async () => {
    const res = await post('/api/eval/run', { golden });
    assert.is(res.status, 200);
    assert.is((await json(res)).summary.questions, 2000);
  });
  assertResponsive('POST /api/eval/run', result);
});

test('keyword rebuild', async () => {
  assertResponsive(
    'POST /api/keywords/rebuild',
    await whileRunning(async () => assert.is((await post('/api/keywords/rebuild?repo=big')).status, 200)),
  );
});

test('schema proposal', async () => {
  llm.replyWith({ delayMs: 200, text: '{"entities":[],"relations":[]}' });
  assertResponsive(
    'POST /api/index/{corpus}/schema-proposal',
    await whileRunning(async () => assert.is((await post('/api/index/big/schema-proposal')).status, 201)),
  );
});

test('reindex', async () => {
  assertResponsive(
    'POST /api/index/start',
    await whileRunning(async () => {
      assert.is((await post('/api/index/start', { repo: 'big' })).status, 202);
      assert.is((await waitForRun(gw.url, 'big')).run.state, 'finished');
    }),
  );
});

test('rerank A/B', async () => {
  const golden = Array.from({ length: 20 }, (_, i) => ({ q: `handler${i} input`, expect_paths: [`module${i}.ts`] }));
  assertResponsive(
    'POST /api/eval/rerank-ab',
    await whileRunning(async () => {
      const res = await post('/api/eval/rerank-ab', { golden, candidates: 10 });
      assert.is(res.status, 200, await res.clone().text());
    }),
  );
});

test('lab run', async () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ question: `What does handler${i} return?`, quote: `handler${i} returns input times k plus ${i}`, expected_answer: `input times k plus ${i}` }));
  assertResponsive(
    'POST /api/lab/runs',
    await whileRunning(async () => {
      const res = await post('/api/lab/runs', { rows });
      assert.is(res.status, 201, await res.clone().text());
    }),
  );
});

test.run();
