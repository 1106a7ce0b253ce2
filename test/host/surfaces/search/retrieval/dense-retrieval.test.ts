import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDir, startGateway, type TestGateway } from '../../../../support/gateway.js';
import { startLlmGatewayFake, type LlmGatewayFake } from '../../../../fakes/llm-gateway-fake.js';
import { search, smallRepo, startRun, waitForRun } from '../search-repo-fixture.js';

const demo = smallRepo();
let fake: LlmGatewayFake;
let gw: TestGateway;

test.before(async () => {
  fake = await startLlmGatewayFake({ apiKey: 'sk-test-gateway', dimensions: 256 });
  gw = await startGateway({
    REPOS: JSON.stringify({ demo }),
    REPO: 'demo',
    EMBEDDING_MODEL: 'fake-embed',
    EMBEDDING_BATCH_SIZE: '2',
    LLM_GATEWAY_URL: fake.url,
    LLM_GATEWAY_API_KEY: 'sk-test-gateway',
  });
});
test.after(async () => {
  await gw.close();
  await fake.close();
  removeDir(demo);
});

test('with EMBEDDING_MODEL set, indexing stores a vector per chunk from the LLM gateway (float encoding, key, run identity)', async () => {
  await startRun(gw.url);
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.run.state, 'finished', status.status.join('\n'));
  const embeds = fake.requests.filter((r) => r.path === '/v1/embeddings');
  assert.ok(embeds.length >= 3, 'batches of EMBEDDING_BATCH_SIZE');
  for (const r of embeds) {
    assert.is(r.body.model, 'fake-embed');
    assert.is(r.body.encoding_format, 'float');
    assert.ok(r.body.input.length <= 2);
    assert.is(r.headers.authorization, 'Bearer sk-test-gateway');
    assert.is(r.headers['x-gateway-session-id'], status.run.id);
    // Compact JSON with sorted keys (workbench spec, run accounting rule 1).
    assert.is(r.headers['x-gateway-spend-logs-metadata'], JSON.stringify({ corpus_id: 'demo', lane: 'index_embeddings', run_id: status.run.id }));
  }
  const chunks = status.run.chunks;
  assert.ok(status.status.includes(`Vectors: ${chunks} stored (fake-embed)`), status.status.join('\n'));
  assert.is(status.run.vectors, chunks);
});

test('a search embeds the query and fuses dense with BM25; the key never shows in responses', async () => {
  const before = fake.requests.length;
  const res = await search(gw.url, { q: 'where is the reload queue coalesced' });
  assert.is(res.status, 200);
  assert.is(res.body.results[0].path, 'core/kernel/reload-queue.ts');
  const query = fake.requests.slice(before).find((r) => r.path === '/v1/embeddings');
  assert.equal(query?.body.input, ['where is the reload queue coalesced']);
  const outcome = await gw.gateway.surfaces.search.search.search('where is the reload queue coalesced', 'demo', 5);
  assert.ok(outcome.dense);
  assert.ok(outcome.hits.some((h) => typeof h.signals?.dense_rank === 'number'), 'dense ranks fused');
  const config = await (await fetch(`${gw.url}/api/config`)).text();
  assert.not.ok(config.includes('sk-test-gateway'));
});

test('when the LLM gateway fails, BM25 alone answers after a bounded retry', async () => {
  fake.failNext(10, 503);
  const before = fake.requests.length;
  const res = await search(gw.url, { q: 'parseHttpHeader' });
  assert.is(res.status, 200);
  assert.is(res.body.results[0].path, 'src/http/header-parser.ts');
  // embedding.embedding_retry_max (default 3) is the whole attempt budget of a query embedding.
  assert.is(fake.requests.length - before, gw.gateway.config.get('embedding.embedding_retry_max'), 'the attempt budget, then BM25 alone');
  assert.is(gw.gateway.config.get('embedding.embedding_retry_max'), 3);
  fake.failNext(0);
});

test.run();
