// Two gateways on one PostgreSQL with RETRIEVAL_BACKEND=retrieval-postgres: an index run started
// on one is the cluster's run (the other answers its status and refuses a second), and the other
// serves searches from the shared index while the run writes, seeing the run's work only at commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { removeDir, startGateway, until, type TestGateway } from '../../support/gateway.js';
import { freshPostgresDatabase } from '../../support/pg.js';
import { search, smallRepo, startRun, statusOf, waitForRun, writeRepoFile } from '../../host/surfaces/search/search-repo-fixture.js';

const repo = smallRepo();
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let client: pg.Client;
const gateways: TestGateway[] = [];

test.before(async () => {
  db = await freshPostgresDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  for (let i = 0; i < 2; i++) {
    gateways.push(await startGateway({ DATABASE_URL: db.url, RETRIEVAL_BACKEND: 'retrieval-postgres', REPOS: JSON.stringify({ demo: repo }), REPO: 'demo', EMBEDDING_MODEL: '' }, { watch: false }));
  }
});
test.after(async () => {
  for (const g of gateways) await g.close();
  await client?.end();
  await db?.drop();
  removeDir(repo);
});

const paths = async (url: string, q: string) => {
  const res = await search(url, { q, repo: 'demo' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return (res.body.results as Array<{ path: string }>).map((r) => r.path);
};

test('an index run on one gateway is the cluster run: the other reports it, refuses a second, and serves the last commit until it lands', async () => {
  const [a, b] = gateways as [TestGateway, TestGateway];
  const first = await startRun(a.url);
  assert.is(first.status, 202, JSON.stringify(first.body));
  assert.is((await waitForRun(b.url, 'demo')).run.state, 'finished');
  assert.ok((await paths(b.url, 'parseHttpHeader')).includes('src/http/header-parser.ts'), 'b searches what a indexed');

  writeRepoFile(repo, 'src/ledger/settlement.ts', 'export function settleLedgerBalances(entries: number[]) {\n  return entries.reduce((a, b) => a + b, 0);\n}\n');
  // Hold the run mid-write: its session blocks on the sources table, its documents written but not committed.
  await client.query('BEGIN');
  await client.query('LOCK TABLE retrieval_sources IN SHARE MODE');
  let released = false;
  let secondId = '';
  try {
    const second = await startRun(a.url);
    assert.is(second.status, 202, JSON.stringify(second.body));
    secondId = second.body.id;
    await until(async () => (await client.query("SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'retrieval_sources' AND NOT l.granted")).rowCount! > 0, 30_000, 50);
    const status = await statusOf(b.url, 'demo');
    assert.is(status.run.state, 'running', 'b reports the run a is doing');
    assert.is(status.run.id, second.body.id);
    const refused = await startRun(b.url);
    assert.is(refused.status, 409, JSON.stringify(refused.body));
    assert.is(refused.body.code, 'index_run_running');
    assert.ok((await paths(b.url, 'parseHttpHeader')).includes('src/http/header-parser.ts'), 'b still serves the last commit');
    assert.equal(await paths(b.url, 'settleLedgerBalances'), [], 'the run is not visible before its commit');
    await client.query('COMMIT');
    released = true;
  } finally {
    if (!released) await client.query('ROLLBACK');
  }
  const done = await waitForRun(b.url, 'demo');
  assert.is(done.run.state, 'finished', done.status.join('\n'));
  assert.is(done.run.id, secondId);
  assert.is((await paths(b.url, 'settleLedgerBalances'))[0], 'src/ledger/settlement.ts', 'published at once to every gateway');
  assert.is((await paths(a.url, 'settleLedgerBalances'))[0], 'src/ledger/settlement.ts');
});

test('a run whose indexer is killed mid-write publishes nothing: the server rolls its transaction back and every gateway keeps the last commit', async () => {
  const [a, b] = gateways as [TestGateway, TestGateway];
  writeRepoFile(repo, 'src/ledger/refunds.ts', 'export function quokkaZanzibarRefund() {\n  return 0;\n}\n');
  await client.query('BEGIN');
  await client.query('LOCK TABLE retrieval_sources IN SHARE MODE');
  let runId = '';
  try {
    const started = await startRun(a.url);
    assert.is(started.status, 202, JSON.stringify(started.body));
    runId = started.body.id;
    await until(async () => (await client.query("SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'retrieval_sources' AND NOT l.granted")).rowCount! > 0, 30_000, 50);
    const pid = a.gateway.surfaces.search.runs.childPid(runId);
    assert.ok(pid, 'the indexer child of the run');
    process.kill(pid!, 'SIGKILL');
    await a.gateway.surfaces.search.runs.settled(runId);
  } finally {
    await client.query('ROLLBACK');
  }
  const status = await waitForRun(b.url, 'demo');
  assert.is(status.run.id, runId);
  assert.is(status.run.state, 'failed', status.status.join('\n'));
  await until(async () => (await client.query("SELECT 1 FROM pg_stat_activity WHERE state = 'idle in transaction' AND datname = current_database()")).rowCount === 0, 10_000, 50);
  assert.equal(await paths(b.url, 'quokkaZanzibarRefund'), [], 'nothing of the killed run is visible');
  assert.is((await paths(b.url, 'settleLedgerBalances'))[0], 'src/ledger/settlement.ts', 'the last commit still answers');
  const again = await startRun(b.url);
  assert.is(again.status, 202, 'the next run starts, on either gateway');
  assert.is((await waitForRun(a.url, 'demo')).run.state, 'finished');
  assert.is((await paths(a.url, 'quokkaZanzibarRefund'))[0], 'src/ledger/refunds.ts');
});

test.run();
