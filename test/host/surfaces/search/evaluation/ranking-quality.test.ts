import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { freshPostgresDatabase } from '../../../../support/pg.js';
import { goldenRepos, goldenSets } from '../../../../support/golden-repos.js';

// The golden sets, indexed once for two questions (one file: the indexing is most of its time).
// 1. Ranking quality: the levels reached with BM25 alone (no EMBEDDING_MODEL), measured minus a
// small margin; see docs/search/code-search.md for the per-set table. A ranking change that
// loses questions fails here. The switchboard set is about this package's own code, so its level
// moves a little as the code grows; the seven foreign sets index exact package versions fetched
// by test/fixtures/golden/fetch-corpora.mjs (npm pack, apt-get download; sha256-checked).
// 2. Backend parity: a second gateway on retrieval-postgres indexes six of the sets (four
// languages with prose) and each must score within 0.02 of retrieval-sqlite on hit@5 and MRR@10;
// the three held-out sets of issue 39 (thousands of files) would add time, not evidence of parity.
const FLOORS = {
  // 0.87 until the code index, status webhooks, packages and isolation added ~10,000 lines of new
  // words about the same subjects (0.8644 then, one question of 97 out of the top 10).
  switchboard: { hit_at_5: 0.96, mrr_at_10: 0.86 },
  pino: { hit_at_5: 0.91, mrr_at_10: 0.79 },
  requests: { hit_at_5: 0.97, mrr_at_10: 0.86 },
  cobra: { hit_at_5: 0.93, mrr_at_10: 0.85 },
  fastify: { hit_at_5: 0.97, mrr_at_10: 0.82 },
  markdownlint: { hit_at_5: 0.91, mrr_at_10: 0.8 },
  // Written for issue 39 before any search ran on them; below the 0.92 / 0.80 targets (see the doc).
  // Raised after issue 39's prose factor (0.7) and keyword boost (off): 0.942 / 0.767, 0.882 / 0.677, 0.840 / 0.718.
  glances: { hit_at_5: 0.92, mrr_at_10: 0.75 },
  libusb: { hit_at_5: 0.86, mrr_at_10: 0.66 },
  npm: { hit_at_5: 0.82, mrr_at_10: 0.7 },
};
const TOLERANCE = 0.02;
const PARITY_SETS = ['cobra', 'fastify', 'markdownlint', 'pino', 'requests', 'switchboard'];
const paritySets = goldenSets().filter((s) => PARITY_SETS.includes(s.file.replace(/\.json$/, '')));

// retrieval-sqlite (every set) and retrieval-postgres (the parity sets).
let gw: TestGateway;
let postgres: TestGateway;
let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
let parityRepos: string[] = [];

async function indexed(gateway: TestGateway, repo: string): Promise<void> {
  const { runs, runStore } = gateway.gateway.surfaces.search;
  const run = await runs.start(repo, false);
  await runs.settled(run.id);
  assert.is((await runStore.get(run.id))?.state, 'finished', `indexing ${repo}: ${(await runStore.get(run.id))?.error}`);
}

async function evaluate(gateway: TestGateway, golden: unknown) {
  const res = await fetch(`${gateway.url}/api/eval/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ golden }) });
  assert.is(res.status, 200);
  return (await res.json()) as { summary: Record<string, number>; questions: Array<{ q: string; rank: number; top: string[] }>; traces: string[] };
}

test.before(async () => {
  // The foreign sets' code is fetched once into a cache outside this repository (it fails naming
  // the missing package or tool when it cannot).
  const repos = await goldenRepos();
  const parityDirs = await goldenRepos(paritySets);
  parityRepos = Object.keys(parityDirs);
  db = await freshPostgresDatabase();
  gw = await startGateway({ REPOS: JSON.stringify(repos), REPO: 'switchboard', EMBEDDING_MODEL: '', LOG_LEVEL: 'warn' }, { watch: false });
  postgres = await startGateway(
    { REPOS: JSON.stringify(parityDirs), REPO: parityRepos[0]!, EMBEDDING_MODEL: '', LOG_LEVEL: 'warn', DATABASE_URL: db.url, RETRIEVAL_BACKEND: 'retrieval-postgres' },
    { watch: false },
  );
  for (const name of Object.keys(FLOORS)) await indexed(gw, name);
  for (const repo of parityRepos) await indexed(postgres, repo);
});

test.after(async () => {
  await gw?.close();
  await postgres?.close();
  await db?.drop();
});

for (const [name, floor] of Object.entries(FLOORS)) {
  test(`${name}: hit@5 and MRR@10 stay at the level reached with BM25 alone`, async () => {
    const report = await evaluate(gw, JSON.parse(readFileSync(path.join(ROOT, `test/fixtures/golden/${name}.json`), 'utf8')));
    const misses = report.questions.filter((q) => q.rank === 0 || q.rank > 5).map((q) => `${q.q} -> ${q.top.slice(0, 3).join(', ')}`);
    assert.ok(report.summary.hit_at_5! >= floor.hit_at_5, `hit@5 ${report.summary.hit_at_5} < ${floor.hit_at_5}; misses:\n${misses.join('\n')}`);
    assert.ok(report.summary.mrr_at_10! >= floor.mrr_at_10, `MRR@10 ${report.summary.mrr_at_10} < ${floor.mrr_at_10}`);
    // The figures are in a trace as well as in the answer.
    assert.is(report.traces.length, 1);
    const trace = JSON.parse(readFileSync(path.join(gw.dataDir, report.traces[0]!), 'utf8'));
    const summary = trace.events.find((e: { kind: string }) => e.kind === 'eval.summary');
    assert.equal(summary.data, report.summary);
  });
}

test('the postgres gateway searches its own backend: the index is in PostgreSQL', async () => {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; documents: string }>('SELECT name, documents FROM retrieval_collections ORDER BY name');
    assert.equal(rows.map((r) => r.name), parityRepos);
    assert.ok(rows.every((r) => Number(r.documents) > 0));
  } finally {
    await client.end();
  }
});

test('on a gateway without PostgreSQL the plugin waits in needs-config, naming its URL setting', async () => {
  const res = await fetch(`${gw.url}/plugins`);
  const view = ((await res.json()) as { plugins: Array<{ id: string; state: string; last_error?: string | null }> }).plugins.find((p) => p.id === 'retrieval-postgres');
  assert.is(view?.state, 'needs-config', JSON.stringify(view));
  assert.match(String(view?.last_error), /set RETRIEVAL_POSTGRES_URL, or run the gateway on PostgreSQL/);
});

for (const { file, golden } of paritySets) {
  test(`${file}: retrieval-postgres is within ${TOLERANCE} of retrieval-sqlite on hit@5 and MRR@10`, async () => {
    const a = (await evaluate(gw, golden)).summary;
    const b = (await evaluate(postgres, golden)).summary;
    console.log(`golden ${file}: retrieval-sqlite hit@5 ${a.hit_at_5!.toFixed(3)} MRR@10 ${a.mrr_at_10!.toFixed(3)} | retrieval-postgres hit@5 ${b.hit_at_5!.toFixed(3)} MRR@10 ${b.mrr_at_10!.toFixed(3)}`);
    for (const metric of ['hit_at_5', 'mrr_at_10']) {
      assert.ok(Math.abs(a[metric]! - b[metric]!) <= TOLERANCE, `${metric}: sqlite ${a[metric]} vs postgres ${b[metric]}`);
    }
  });
}

test.run();
