// Answer-path benchmarks over this project's own source (the repository the golden set asks
// about), against the loopback LLM gateway fake answering at once:
// - what our answer path adds around the model call (retrieval, grading, prompt building,
//   citation checks, trace writing, HTTP), as a ratio to the model call's own time;
// - a cache hit's latency against a plain search of the same question.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, json, startGateway } from '../test/support/gateway.js';
import { startLlmGatewayFake } from '../test/fakes/llm-gateway-fake.js';
import { search, startRun, waitForRun } from '../test/host/surfaces/search/search-repo-fixture.js';
import { percentile, ms } from './stats.js';

const questions = (JSON.parse(readFileSync(path.join(ROOT, 'test/fixtures/golden/switchboard.json'), 'utf8')) as Array<{ q: string }>).map((g) => g.q).slice(0, 40);

const fake = await startLlmGatewayFake();
fake.defaultChat = 'The answer is in the first excerpt [1] and the second [2].';
const gw = await startGateway({ REPOS: JSON.stringify({ switchboard: ROOT }), REPO: 'switchboard', LOG_LEVEL: 'warn', GEN_MODEL: 'fake-gen', LLM_GATEWAY_URL: fake.url });
// The cache is off for the overhead figures (set through the config file layer, so it can be turned on later).
await gw.gateway.config.update({ ANSWER_CACHE_SIZE: 0 });
try {
  await startRun(gw.url);
  const status = await waitForRun(gw.url, 'switchboard', 300_000);
  console.log(`index: ${status.run.state}, ${status.run.files_seen} files, ${status.run.chunks} chunks`);

  async function rag(question: string): Promise<{ ms: number; body: any }> {
    const t = performance.now();
    const res = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
    const body = await json(res);
    if (res.status !== 200) throw new Error(`rag answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - t, body };
  }

  // Warm-up: the graph is built and the retrieval backend opened on first use.
  for (const q of questions.slice(0, 3)) await rag(q);

  const totals: number[] = [];
  const models: number[] = [];
  const overheads: number[] = [];
  for (const q of questions) {
    const { ms: total, body } = await rag(q);
    const trace = JSON.parse(readFileSync(path.join(gw.dataDir, body.trace), 'utf8'));
    const model = trace.events.filter((e: any) => e.kind === 'model.call').reduce((s: number, e: any) => s + e.data.ms, 0);
    totals.push(total);
    models.push(model);
    overheads.push(total - model);
  }
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(`answers (${questions.length}, cache off, graph mode): total p50 ${ms(p50(totals))} p95 ${ms(percentile(totals, 95))}`);
  console.log(`  model call (loopback fake, at once): p50 ${ms(p50(models))}`);
  console.log(`  our path around it: p50 ${ms(p50(overheads))} p95 ${ms(percentile(overheads, 95))}; ratio to the model call p50 ${(p50(overheads) / p50(models)).toFixed(1)}x`);

  // Cache hits against a plain search of the same question (both over HTTP).
  await gw.gateway.config.update({ ANSWER_CACHE_SIZE: 256 });
  const hits: number[] = [];
  const searches: number[] = [];
  for (const q of questions) await rag(q); // fills the cache
  const before = fake.requests.length;
  for (let round = 0; round < 3; round++) {
    for (const q of questions) {
      hits.push((await rag(q)).ms);
      const t = performance.now();
      await search(gw.url, { q, repo: 'switchboard' });
      searches.push(performance.now() - t);
    }
  }
  console.log(`cache hit: p50 ${ms(p50(hits))} p95 ${ms(percentile(hits, 95))}; search of the same question p50 ${ms(p50(searches))} p95 ${ms(percentile(searches, 95))}; ratio ${(p50(hits) / p50(searches)).toFixed(2)}`);
  console.log(`  gateway requests during ${hits.length} cache hits: ${fake.requests.length - before}`);
} finally {
  await gw.close();
  await fake.close();
}
