// The same golden-set evaluation as retrieval-sqlite, on both backends in one run: two gateways
// index the same repositories (BM25 alone, no EMBEDDING_MODEL), one on the default retrieval-sqlite,
// one on retrieval-postgres, and each golden set below must score within 0.02 of the other on
// hit@5 and MRR@10. Six sets in four languages with prose; the three held-out sets of issue 39
// (thousands of files) add time, not evidence of parity: ranking-quality.test.ts measures them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGateway, type TestGateway } from '../../support/gateway.js';
import { freshPostgresDatabase } from '../../support/pg.js';
import { goldenRepos, goldenSets } from '../../support/golden-repos.js';

const TOLERANCE = 0.02;
const PARITY_SETS = ['cobra', 'fastify', 'markdownlint', 'pino', 'requests', 'switchboard'];
const sets = goldenSets().filter((s) => PARITY_SETS.includes(s.file.replace(/\.json$/, '')));
let repos: string[] = [];

let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let sqlite: TestGateway;
let postgres: TestGateway;

async function indexed(gw: TestGateway, repo: string): Promise<void> {
  const { runs, runStore } = gw.gateway.surfaces.search;
  const run = await runs.start(repo, false);
  await runs.settled(run.id);
  assert.is((await runStore.get(run.id))?.state, 'finished', `indexing ${repo}: ${(await runStore.get(run.id))?.error}`);
}

async function evaluate(gw: TestGateway, golden: unknown): Promise<Record<string, number>> {
  const res = await fetch(`${gw.url}/api/eval/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ golden }) });
  assert.is(res.status, 200);
  return ((await res.json()) as { summary: Record<string, number> }).summary;
}

test.before(async () => {
  const repoDirs = await goldenRepos(sets);
  repos = Object.keys(repoDirs);
  db = await freshPostgresDatabase();
  const env = { REPOS: JSON.stringify(repoDirs), REPO: repos[0]!, EMBEDDING_MODEL: '', LOG_LEVEL: 'warn' };
  sqlite = await startGateway(env, { watch: false });
  postgres = await startGateway({ ...env, DATABASE_URL: db.url, RETRIEVAL_BACKEND: 'retrieval-postgres' }, { watch: false });
  for (const repo of repos) {
    await indexed(sqlite, repo);
    await indexed(postgres, repo);
  }
});

test.after(async () => {
  await sqlite?.close();
  await postgres?.close();
  await db?.drop();
});

test('the postgres gateway searches its own backend: the index is in PostgreSQL', async () => {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; documents: string }>('SELECT name, documents FROM retrieval_collections ORDER BY name');
    assert.equal(rows.map((r) => r.name), repos);
    assert.ok(rows.every((r) => Number(r.documents) > 0));
  } finally {
    await client.end();
  }
});

test('on a gateway without PostgreSQL the plugin waits in needs-config, naming its URL setting', async () => {
  const res = await fetch(`${sqlite.url}/plugins`);
  const view = ((await res.json()) as { plugins: Array<{ id: string; state: string; last_error?: string | null }> }).plugins.find((p) => p.id === 'retrieval-postgres');
  assert.is(view?.state, 'needs-config', JSON.stringify(view));
  assert.match(String(view?.last_error), /set RETRIEVAL_POSTGRES_URL, or run the gateway on PostgreSQL/);
});

for (const { file, golden } of sets) {
  test(`${file}: retrieval-postgres is within ${TOLERANCE} of retrieval-sqlite on hit@5 and MRR@10`, async () => {
    const a = await evaluate(sqlite, golden);
    const b = await evaluate(postgres, golden);
    console.log(`golden ${file}: retrieval-sqlite hit@5 ${a.hit_at_5!.toFixed(3)} MRR@10 ${a.mrr_at_10!.toFixed(3)} | retrieval-postgres hit@5 ${b.hit_at_5!.toFixed(3)} MRR@10 ${b.mrr_at_10!.toFixed(3)}`);
    for (const metric of ['hit_at_5', 'mrr_at_10']) {
      assert.ok(Math.abs(a[metric]! - b[metric]!) <= TOLERANCE, `${metric}: sqlite ${a[metric]} vs postgres ${b[metric]}`);
    }
  });
}

test.run();
