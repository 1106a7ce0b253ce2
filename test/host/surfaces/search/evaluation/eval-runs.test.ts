import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../../support/gateway.js';
import { smallRepo } from '../search-repo-fixture.js';

const demo = smallRepo();
const dataDir = tempDir();
const ENV = { REPOS: JSON.stringify({ demo }), REPO: 'demo', EVAL_SYNC_MAX_QUESTIONS: '3', EVAL_MAX_QUESTIONS: '1500', EVAL_MAX_RUNNING: '1' };
let gw: TestGateway;

const QUESTION = { q: 'where is the reload queue coalesced', expect_paths: ['reload-queue'] };
const golden = (n: number) => Array.from({ length: n }, (_, i) => ({ ...QUESTION, q: `${QUESTION.q} ${i}` }));
const post = (p: string, body: unknown) => fetch(`${gw.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const runOf = async (id: string) => json(await fetch(`${gw.url}/api/eval/runs/${id}`));
const finished = (id: string) => until(async () => ((await runOf(id)).state === 'finished' ? runOf(id) : undefined), 60_000, 50);

test.before(async () => {
  gw = await startGateway(ENV, { dataDir });
  const { runs } = gw.gateway.surfaces.search;
  await runs.settled((await runs.start('demo', false)).id);
});
test.after(async () => {
  await gw?.close();
  removeDir(demo);
  removeDir(dataDir);
});

test('POST /api/eval/runs answers 202 with the run; GET gives progress, then the report', async () => {
  const res = await post('/api/eval/runs', { golden: golden(2) });
  assert.is(res.status, 202);
  const started = await json(res);
  assert.is(res.headers.get('location'), `/api/eval/runs/${started.id}`);
  assert.is(started.state, 'running');
  assert.is(started.questions, 2);
  assert.is(started.report, null);
  const done = await finished(started.id);
  assert.is(done.done, 2);
  assert.is(done.report.summary.questions, 2);
  assert.is(done.report.summary.hit_at_1, 1);
  assert.ok(done.finished_at);
  assert.is((await fetch(`${gw.url}/api/eval/runs/00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.is((await json(await fetch(`${gw.url}/api/eval/runs/00000000-0000-4000-8000-000000000000`))).code, 'evaluation_run_not_found');
});

test('POST /api/eval/run: the report at once up to EVAL_SYNC_MAX_QUESTIONS, a background run beyond it', async () => {
  const small = await post('/api/eval/run', { golden: golden(3) });
  assert.is(small.status, 200);
  const report = await json(small);
  assert.is(report.summary.questions, 3);
  assert.is((await runOf(report.run_id)).state, 'finished', 'the synchronous answer is a recorded run too');
  const large = await post('/api/eval/run', { golden: golden(4) });
  assert.is(large.status, 202);
  const run = await json(large);
  assert.is(run.questions, 4);
  assert.is((await finished(run.id)).report.summary.questions, 4);
  const asked = await post('/api/eval/run', { golden: golden(1), background: true });
  assert.is(asked.status, 202);
  await finished((await json(asked)).id);
});

test('more entries than EVAL_MAX_QUESTIONS answer 413; EVAL_MAX_RUNNING bounds the runs at once (429)', async () => {
  const over = await post('/api/eval/runs', { golden: golden(1501) });
  assert.is(over.status, 413);
  const body = await json(over);
  assert.is(body.code, 'payload_too_large');
  assert.match(body.detail, /EVAL_MAX_QUESTIONS/);
  const long = await post('/api/eval/runs', { golden: golden(1500) });
  assert.is(long.status, 202);
  const running = await json(long);
  const busy = await post('/api/eval/runs', { golden: golden(1) });
  assert.is(busy.status, 429);
  assert.is((await json(busy)).code, 'evaluation_runs_busy');
  const progressed = await until(async () => {
    const r = await runOf(running.id);
    return r.done > 0 ? r : undefined;
  }, 30_000, 50);
  assert.ok(progressed.done <= progressed.questions);
  await finished(running.id);
});

test('a run cut by a stop reads interrupted after the restart', async () => {
  const res = await post('/api/eval/runs', { golden: golden(1500) });
  assert.is(res.status, 202);
  const { id } = await json(res);
  await gw.gateway.close();
  gw = await startGateway(ENV, { dataDir });
  const after = await runOf(id);
  assert.is(after.state, 'interrupted');
  assert.ok(after.done < after.questions, JSON.stringify({ done: after.done }));
  assert.match(after.error, /stopped/);
});

test.run();
