import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDir, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { startLlmGatewayFake, type LlmGatewayFake } from '../../../../fakes/llm-gateway-fake.js';
import { bigRepo, smallRepo, startRun, waitForRun } from '../../search/search-repo-fixture.js';
import { accountingEnv, accountingSettings, codes, latestRun, reconcileRun, runRecord } from './accounting-fixture.js';

const repos = { demo: smallRepo(), big: bigRepo(200) };
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let fake: LlmGatewayFake;
let gw: TestGateway;

test.before(async () => {
  db = await freshPostgresDatabase();
  fake = await startLlmGatewayFake({ apiKey: 'sk-accounting-gateway' });
  gw = await startGateway({ DATABASE_URL: db.url, ...accountingEnv(repos) });
  await gw.gateway.config.update({ ...accountingSettings(fake.url), 'accounting.ledger_settle_s': 0 });
});
test.after(async () => {
  await gw.close();
  await fake.close();
  await db.drop();
  for (const dir of Object.values(repos)) removeDir(dir);
});

test('PostgreSQL: a run completes, then stays readable after its corpus is deleted', async () => {
  const started = await startRun(gw.url, { repo: 'demo' });
  assert.is((await waitForRun(gw.url, 'demo')).run.state, 'finished');
  const rec = await reconcileRun(gw.url, 'demo', started.body.id);
  assert.is(rec.body.costs.state, 'complete', JSON.stringify(rec.body.costs.reasons));
  assert.is((await fetch(`${gw.url}/api/index/demo`, { method: 'DELETE' })).status, 200);
  assert.is((await latestRun(gw.url, 'demo')).status, 404);
  const kept = await runRecord(gw.url, 'demo', started.body.id);
  assert.is(kept.body.costs.state, 'complete');
  assert.is(kept.body.corpus_deleted, true);
});

test('PostgreSQL: a SIGKILLed indexer leaves its lane interrupted and the run incomplete', async () => {
  const started = await startRun(gw.url, { repo: 'big' });
  const pid = await until(() => gw.gateway.surfaces.search.runs.childPid(started.body.id), 60_000, 5);
  await until(async () => ((await latestRun(gw.url, 'big', '?finalize=false')).body.lanes?.[0]?.started ?? 0) >= 1 || undefined, 60_000, 5);
  process.kill(pid, 'SIGKILL');
  assert.is((await waitForRun(gw.url, 'big')).run.state, 'failed');
  const rec = await reconcileRun(gw.url, 'big', started.body.id);
  assert.is(rec.body.lanes[0].status, 'interrupted');
  assert.ok(codes(rec.body).includes('interrupted_census'));
  assert.is(rec.body.label, 'Incomplete · Interrupted');
});

test.run();
