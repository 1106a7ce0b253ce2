import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { search, smallRepo, startRun, statusOf, waitForRun } from '../search-repo-fixture.js';

const demo = smallRepo();
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
const gateways: TestGateway[] = [];

test.before(async () => {
  db = await freshPostgresDatabase();
  for (let i = 0; i < 2; i++) gateways.push(await startGateway({ DATABASE_URL: db.url, REPOS: JSON.stringify({ demo, other: demo }), REPO: 'demo' }));
});
test.after(async () => {
  for (const g of gateways) await g.close();
  await db.drop();
  removeDir(demo);
});

test('run rows live in PostgreSQL: every instance sees the run, and a second instance cannot start the same repository', async () => {
  const [a, b] = gateways as [TestGateway, TestGateway];
  const started = await startRun(a.url);
  assert.is(started.status, 202);
  const status = await waitForRun(b.url, 'demo');
  assert.ok(['finished'].includes(status.run.state), status.status.join('\n'));
  assert.is(status.run.id, started.body.id, 'b reads the run a started');
  assert.is((await search(a.url, { q: 'parseHttpHeader' })).body.results[0].path, 'src/http/header-parser.ts');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const rows = await client.query("select state, repo from index_runs where repo = 'demo'");
    assert.ok(rows.rows.length >= 1);
    // A run of another instance, alive (fresh heartbeat): neither instance may start the repository.
    await client.query(
      "insert into index_runs (id, repo, kind, state, enrich, files_seen, files_changed, files_removed, files_skipped, chunks, vectors, started_at, heartbeat_at) values ('held-elsewhere', 'demo', 'full', 'running', 0, 0, 0, 0, 0, 0, 0, $1, $2)",
      [new Date().toISOString(), Date.now()],
    );
    for (const g of [a, b]) {
      const conflict = await startRun(g.url);
      assert.is(conflict.status, 409, JSON.stringify(conflict.body));
      assert.is(conflict.body.code, 'index_run_running');
      assert.ok(conflict.body.detail.includes('held-elsewhere'), conflict.body.detail);
    }
    await client.query("update index_runs set state = 'finished', finished_at = $1 where id = 'held-elsewhere'", [new Date().toISOString()]);
  } finally {
    await client.end();
  }
  const again = await startRun(b.url);
  assert.is(again.status, 202, 'the repository starts once the other run ended');
  assert.is((await waitForRun(a.url, 'demo')).run.state, 'finished');
});

test('a running row whose gateway died (stale heartbeat) shows interrupted, and the next start works', async () => {
  const [a] = gateways as [TestGateway];
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query(
      "insert into index_runs (id, repo, kind, state, enrich, files_seen, files_changed, files_removed, files_skipped, chunks, vectors, started_at, heartbeat_at) values ('dead-run', 'other', 'full', 'running', 0, 3, 3, 0, 0, 9, 0, $1, $2)",
      [new Date(Date.now() - 60_000).toISOString(), Date.now() - 10 * 60_000],
    );
  } finally {
    await client.end();
  }
  const status = await statusOf(a.url, 'other');
  assert.is(status.run.id, 'dead-run');
  assert.is(status.run.state, 'interrupted');
  assert.match(status.status[status.status.length - 1], /^Indexing interrupted: /);
  assert.is((await startRun(a.url, { repo: 'other' })).status, 202);
  assert.is((await waitForRun(a.url, 'other')).run.state, 'finished');
});

test.run();
