import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { startLlmGatewayFake, type LlmGatewayFake, type SeenRequest } from '../../../../fakes/llm-gateway-fake.js';
import { enrichmentText } from '../../../../../host/surfaces/search/indexing/indexer/enrichment.js';
import { search, smallRepo, startRun, waitForRun } from '../search-repo-fixture.js';

// ENRICH_CODE_CHUNKS: the model's summary and keywords of each chunk are indexed as their own
// field, found by search and shown to the answer model next to the chunk.
const repos = { plain: smallRepo(), rich: smallRepo() };
let fake: LlmGatewayFake;
let gw: TestGateway;

// Words in no file of the repository: only the summary of the reload queue holds them.
const SUMMARY = 'Throttles bursts of configuration refreshes into a single pass.';
const KEYWORDS = ['debounce', 'throttle', 'burst'];
const ENRICH_PROMPT = /^Summarize what this code does/;

function reply(req: SeenRequest): string {
  const system = String(req.body?.messages?.[0]?.content ?? '');
  const user = String(req.body?.messages?.[1]?.content ?? '');
  if (!ENRICH_PROMPT.test(system)) return 'Refreshes are throttled by the reload queue [1].';
  if (user.startsWith('core/kernel/reload-queue.ts')) return `Here you are: ${JSON.stringify({ summary: SUMMARY, keywords: KEYWORDS })}`;
  return JSON.stringify({ summary: 'Helper code.', keywords: ['helper'] });
}

test.before(async () => {
  fake = await startLlmGatewayFake({ apiKey: 'sk-enrich' });
  fake.defaultChat = reply;
  gw = await startGateway({ REPOS: JSON.stringify(repos), REPO: 'rich' });
  // Live settings, not the environment (which would win over the update that turns dense retrieval off below).
  const applied = await gw.gateway.config.update({ EMBEDDING_MODEL: 'fake-embed', GEN_MODEL: 'fake-gen', LLM_GATEWAY_URL: fake.url, LLM_GATEWAY_API_KEY: 'sk-enrich' });
  assert.equal(applied.envOverridden, []);
});
test.after(async () => {
  await gw.close();
  await fake.close();
  for (const dir of Object.values(repos)) removeDir(dir);
});

async function indexed(repo: string, enrich: boolean): Promise<void> {
  const started = await startRun(gw.url, { repo, enrich });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const status = await waitForRun(gw.url, repo);
  assert.is(status.run.state, 'finished', status.status.join('\n'));
}

test('the reply becomes the summary then the keywords; a reply that is not that JSON is kept as it came', () => {
  assert.is(enrichmentText(`ok ${JSON.stringify({ summary: ' Sorts rows. ', keywords: ['sort', 3, ' order '] })}`), 'Sorts rows.\nsort, order');
  assert.is(enrichmentText('  just prose  '), 'just prose');
  assert.is(enrichmentText('{"summary": 1}'), '{"summary": 1}');
});

test('a query that matches only words of the summary finds the chunk (BM25 alone), and the hit shows its enrichment', async () => {
  await indexed('plain', false);
  await indexed('rich', true);
  const enrichCalls = fake.chats().filter((r) => ENRICH_PROMPT.test(String(r.body.messages[0].content)));
  assert.ok(enrichCalls.length >= 5, `one call per chunk (got ${enrichCalls.length})`);
  // Dense retrieval off: any hit below comes from the terms index.
  await gw.gateway.config.update({ EMBEDDING_MODEL: null });
  const plain = await search(gw.url, { q: 'throttle bursts', repo: 'plain' });
  assert.equal(plain.body.results, [], 'without enrichment no file holds these words');
  const rich = await search(gw.url, { q: 'throttle bursts', repo: 'rich' });
  assert.is(rich.body.results[0]?.path, 'core/kernel/reload-queue.ts', JSON.stringify(rich.body));
  assert.is(rich.body.results[0].enrichment, `${SUMMARY}\n${KEYWORDS.join(', ')}`);
  const keyword = await search(gw.url, { q: 'debounce', repo: 'rich' });
  assert.is(keyword.body.results[0]?.path, 'core/kernel/reload-queue.ts', 'a keyword alone finds it too');
});

test('answers get the summary as context next to the chunk', async () => {
  const before = fake.chats().length;
  const res = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'what throttles bursts of refreshes', repo: 'rich' }) });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.citations[0]?.path, 'core/kernel/reload-queue.ts', JSON.stringify(body));
  const prompts = fake.chats().slice(before).map((r) => String(r.body.messages.at(-1).content)).filter((c) => c.startsWith('Excerpts:'));
  assert.ok(prompts.length >= 1, 'the answer model was asked');
  assert.match(prompts.at(-1)!, /\[1\] core\/kernel\/reload-queue\.ts:\d+-\d+\nSummary: Throttles bursts of configuration refreshes into a single pass\. debounce, throttle, burst\n/);
});

test.run();
