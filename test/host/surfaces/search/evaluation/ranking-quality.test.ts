import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { goldenRepos } from '../../../../support/golden-repos.js';

// The levels reached with BM25 alone (no EMBEDDING_MODEL), measured minus a small margin; see
// docs/search/code-search.md for the per-set table. A ranking change that loses questions fails
// here. The switchboard set is about this package's own code, so its level moves a little as the
// code grows; the seven foreign sets index exact package versions fetched by
// test/fixtures/golden/fetch-corpora.mjs (npm pack, apt-get download; sha256-checked).
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

let gw: TestGateway;

async function indexed(repo: string): Promise<void> {
  const { runs, runStore } = gw.gateway.surfaces.search;
  const run = await runs.start(repo, false);
  await runs.settled(run.id);
  assert.is((await runStore.get(run.id))?.state, 'finished', `indexing ${repo}`);
}

async function evaluate(goldenFile: string) {
  const golden = JSON.parse(readFileSync(path.join(ROOT, goldenFile), 'utf8'));
  const res = await fetch(`${gw.url}/api/eval/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ golden }) });
  assert.is(res.status, 200);
  return (await res.json()) as { summary: Record<string, number>; questions: Array<{ q: string; rank: number; top: string[] }>; traces: string[] };
}

test.before(async () => {
  // The foreign sets' code is fetched once into a cache outside this repository (it fails naming
  // the missing package or tool when it cannot).
  const repos = await goldenRepos();
  gw = await startGateway({ REPOS: JSON.stringify(repos), REPO: 'switchboard', EMBEDDING_MODEL: '' }, { watch: false });
  for (const name of Object.keys(FLOORS)) await indexed(name);
});

for (const [name, floor] of Object.entries(FLOORS)) {
  test(`${name}: hit@5 and MRR@10 stay at the level reached with BM25 alone`, async () => {
    const report = await evaluate(`test/fixtures/golden/${name}.json`);
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

test.after(async () => {
  await gw?.close();
});
test.run();
