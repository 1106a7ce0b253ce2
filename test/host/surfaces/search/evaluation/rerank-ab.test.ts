import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startGateway, tempDir, json, until, type TestGateway } from '../../../../support/gateway.js';
import { startSystemOneFake } from '../../../../fakes/system-one-fake.js';

// A repository where the word "ledger" is everywhere but only one file answers the question.
const repoDir = tempDir('switchboard-rerank-repo-');
const files: Record<string, string> = {
  'src/ledger-report.ts': 'export function ledgerReport(ledger: string) { return `ledger ${ledger} ledger report`; }\n',
  'src/ledger-names.ts': 'export const ledgerNames = ["ledger", "ledger-b", "ledger-c"]; // ledger ledger\n',
  'src/ledger-close.ts': '// closes the books\nexport function closeLedgerPeriod(ledger: string) { return ledger + " closed"; }\n',
  'docs/ledger.md': '# Ledger\n\nThe ledger, the ledger and the ledger.\n',
};
for (const [rel, text] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(repoDir, rel)), { recursive: true });
  writeFileSync(path.join(repoDir, rel), text);
}
const GOLDEN = [{ q: 'how is a ledger period closed', repo: 'books', expect_paths: ['ledger-close'] }];

let fake: Awaited<ReturnType<typeof startSystemOneFake>>;
let gw: TestGateway;
const post = (body: unknown) => fetch(`${gw.url}/api/eval/rerank-ab`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test.before(async () => {
  fake = await startSystemOneFake();
  gw = await startGateway({ REPOS: JSON.stringify({ books: repoDir }), REPO: 'books', SYSTEM_ONE__HOSTED_URL: fake.url, HOSTED_JUDGE_API_KEY: 'k', SYSTEM_ONE__MAX_RETRIES: '0' }, { watch: false });
  const { runs } = gw.gateway.surfaces.search;
  const run = await runs.start('books', false);
  await runs.settled(run.id);
  await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted')?.state === 'active');
});
test.after(async () => {
  await gw?.close();
  await fake?.close();
  rmSync(repoDir, { recursive: true, force: true });
});

test('the judge reorders the candidates: baseline and reranked figures side by side, one call per candidate', async () => {
  // The judge says yes only to the passage that closes a period.
  fake.answerWith((body) => (String(body.state.candidate_passage).includes('closeLedgerPeriod') ? 0.97 : 0.05));
  const res = await post({ golden: GOLDEN, candidates: 4 });
  assert.is(res.status, 200, await res.clone().text());
  const report = await json(res);
  assert.is(report.reranked.hit_at_1, 1, 'the answering file is first after reranking');
  assert.is(report.reranked.mrr_at_10, 1);
  assert.ok(report.delta.mrr_at_10 >= 0);
  assert.is(report.questions[0].reranked_rank, 1);
  assert.is(report.judge.calls, fake.requests.length, 'one judge call per candidate');
  assert.ok(report.judge.calls >= 2 && report.judge.calls <= 4);
  const sent = fake.requests[0]!.body;
  assert.equal(Object.keys(sent.questions), ['answers_query']);
  assert.equal(Object.keys(sent.state), ['query', 'candidate_passage']);
  assert.is(sent.state.query, GOLDEN[0]!.q);
  for (const key of ['hit_at_1', 'hit_at_3', 'hit_at_5', 'hit_at_10', 'mrr_at_10', 'ndcg_at_10', 'map']) assert.type(report.baseline[key], 'number', key);
  assert.ok(report.reranked.latency_ms.p50 >= report.baseline.latency_ms.p50, 'reranking adds the judge calls to the latency');
  assert.is(report.traces.length, 1);
});

test('a judge that always prefers another file moves the answer down', async () => {
  fake.reset();
  fake.answerWith((body) => (String(body.state.candidate_passage).includes('closeLedgerPeriod') ? 0.01 : 0.9));
  const report = await json(await post({ golden: GOLDEN, candidates: 4 }));
  assert.ok(report.questions[0].reranked_rank > 1, JSON.stringify(report.questions[0]));
  assert.ok(report.delta.mrr_at_10 <= 0);
});

test('a judge failure fails the comparison with its typed reason; bad input is refused', async () => {
  fake.reset();
  fake.answerWith(undefined);
  fake.script({ status: 500 });
  const res = await post({ golden: GOLDEN, candidates: 2 });
  assert.is(res.status, 502);
  const body = await json(res);
  assert.is(body.code, 'judge_http_error');
  assert.match(body.detail, /http_error/);
  assert.is((await post({ golden: [], candidates: 2 })).status, 422);
  assert.is((await post({ golden: GOLDEN, candidates: 0 })).status, 422);
  assert.is((await post({ golden: [{ q: 'x', repo: 'nope', expect_paths: ['a'] }] })).status, 404);
});

test.run();
