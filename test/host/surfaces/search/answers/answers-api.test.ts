import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, removeDir, startGateway, until, type TestGateway } from '../../../../support/gateway.js';
import { startLlmGatewayFake, type LlmGatewayFake, type SeenRequest } from '../../../../fakes/llm-gateway-fake.js';
import { smallRepo, startRun, waitForRun, writeRepoFile } from '../search-repo-fixture.js';
import { AnswerService } from '../../../../../host/surfaces/search/answers/answer-service.js';
import { gatewayConfig } from '../../../../support/gateway-config.js';

const KEY = 'sk-answers-gateway-secret';
const demo = smallRepo();
let fake: LlmGatewayFake;
let gw: TestGateway;

async function post(route: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await json(res) };
}

const rag = (body: Record<string, unknown>) => post('/api/rag', body);
const chatsSince = (n: number) => fake.requests.slice(n).filter((r) => r.path === '/v1/chat/completions');
const meta = (r: SeenRequest) => JSON.parse(String(r.headers['x-gateway-spend-logs-metadata']));

function traceOf(rel: string): any {
  return JSON.parse(readFileSync(path.join(gw.dataDir, rel), 'utf8'));
}

/** Parses a text/event-stream body into its events. */
function sseEvents(text: string): Array<{ event: string; data: any }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
      return { event, data: JSON.parse(data) };
    });
}

test.before(async () => {
  fake = await startLlmGatewayFake({ apiKey: KEY });
  gw = await startGateway({
    REPOS: JSON.stringify({ demo }),
    REPO: 'demo',
    EMBEDDING_MODEL: 'fake-embed',
    EMBEDDING_DIM: '64',
    ANSWER_CACHE_THRESHOLD: '0.9',
    LLM_GATEWAY_URL: fake.url,
    LLM_GATEWAY_API_KEY: KEY,
  });
  await startRun(gw.url);
  const status = await waitForRun(gw.url, 'demo');
  assert.is(status.run.state, 'finished', status.status.join('\n'));
});
test.after(async () => {
  await gw.close();
  await fake.close();
  removeDir(demo);
});

test('with GEN_MODEL unset, answers are extractive: best snippets with citations, no model call (rag and chat)', async () => {
  const before = fake.requests.length;
  const res = await rag({ question: 'where is the reload queue coalesced' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'extractive');
  assert.is(res.body.model, null);
  assert.is(res.body.citations[0].path, 'core/kernel/reload-queue.ts');
  assert.ok(res.body.answer.includes('class ReloadQueue'));
  // The answer says how to get a generated one, and asks nothing of a history it did not get.
  assert.equal(res.body.notes.length, 1, JSON.stringify(res.body.notes));
  assert.match(res.body.notes[0], /no model configured.*set GEN_MODEL/);
  assert.is(chatsSince(before).length, 0);
  const chat = await post('/api/chat', { messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'how are phone numbers masked' }] });
  assert.is(chat.status, 200, JSON.stringify(chat.body));
  assert.is(chat.body.mode, 'extractive');
  assert.is(chat.body.citations[0].path, 'src/phone.py');
  const trace = traceOf(chat.body.trace);
  assert.ok(trace.events.some((e: any) => e.kind === 'chat.condense' && e.data.by === 'last user message'));
  // Dropping the conversation is said, not silent.
  assert.ok(chat.body.notes.some((n: string) => /history is not used without a model/.test(n)), JSON.stringify(chat.body.notes));
});

test('graph mode: retrieve, grade, generate; citations checked against retrieved chunks; one run id on every call; trace without the key', async () => {
  await gw.gateway.config.update({ GEN_MODEL: 'fake-gen' });
  const before = fake.requests.length;
  fake.replyWith('Requests arriving during a reload are coalesced into one [1], see also [9].');
  const res = await rag({ question: 'where is the reload queue coalesced', top_k: 5 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'graph');
  assert.is(res.body.model, 'fake-gen');
  assert.equal(res.body.citations, [{ path: 'core/kernel/reload-queue.ts', start_line: res.body.citations[0].start_line, end_line: res.body.citations[0].end_line, run_id: res.body.citations[0].run_id, indexed_at: res.body.citations[0].indexed_at, stale: false }]);
  assert.match(res.body.citations[0].run_id, /^[0-9a-f-]{36}$/);
  assert.is(res.body.stale, undefined, 'nothing cited is stale');
  const seen = fake.requests.slice(before);
  const chats = seen.filter((r) => r.path === '/v1/chat/completions');
  assert.is(chats.length, 1);
  assert.is(chats[0]!.body.model, 'fake-gen');
  assert.ok(JSON.stringify(chats[0]!.body.messages).includes('core/kernel/reload-queue.ts'));
  const lanes = seen.map((r) => meta(r).lane).sort();
  // The cache fingerprint of this question was embedded by the extractive run before: no cache_embeddings call now.
  assert.equal(lanes, ['answer_generation', 'retrieval_embeddings']);
  for (const r of seen) {
    assert.is(r.headers.authorization, `Bearer ${KEY}`);
    assert.is(r.headers['x-gateway-session-id'], res.body.run_id);
    // Compact JSON with sorted keys, as the gateway ledger compares it.
    assert.is(r.headers['x-gateway-spend-logs-metadata'], JSON.stringify({ corpus_id: 'demo', lane: meta(r).lane, run_id: res.body.run_id }));
  }
  const text = readFileSync(path.join(gw.dataDir, res.body.trace), 'utf8');
  assert.not.ok(text.includes(KEY), 'the gateway key never appears in a trace');
  const trace = JSON.parse(text);
  const kinds = trace.events.map((e: any) => e.kind);
  for (const k of ['answer.request', 'retrieval', 'grading', 'model.call', 'citations', 'answer.done']) assert.ok(kinds.includes(k), `${k} in ${kinds}`);
  const call = trace.events.find((e: any) => e.kind === 'model.call').data;
  assert.is(call.lane, 'answer_generation');
  assert.ok(call.usage.total > 0 && call.usage.total === call.usage.prompt + call.usage.completion, JSON.stringify(call.usage));
  assert.ok(typeof call.ms === 'number');
  assert.equal(trace.events.find((e: any) => e.kind === 'citations').data.dropped, ['[9]']);
  assert.ok(trace.events.find((e: any) => e.kind === 'retrieval').data.candidates[0].score > 0);
});

test('cache: the same question over the same index makes no gateway call', async () => {
  const before = fake.requests.length;
  const res = await rag({ question: '  Where is the reload queue   coalesced ', top_k: 5 });
  assert.is(res.status, 200);
  assert.is(res.body.mode, 'graph');
  assert.is(res.body.citations[0].path, 'core/kernel/reload-queue.ts');
  assert.is(fake.requests.length - before, 0, 'zero requests for an exact hit');
  assert.ok(traceOf(res.body.trace).events.some((e: any) => e.kind === 'cache.hit' && e.data.kind === 'exact' && e.data.gateway_requests === 0));
});

test('cache: a close question hits by embedding (one cache_embeddings call, then none)', async () => {
  const before = fake.requests.length;
  const res = await rag({ question: 'where is reload queue coalesced?', top_k: 5 });
  assert.is(res.status, 200);
  assert.ok(res.body.answer.includes('coalesced into one'));
  const seen = fake.requests.slice(before);
  assert.equal(seen.map((r) => [r.path, meta(r).lane]), [['/v1/embeddings', 'cache_embeddings']]);
  const again = fake.requests.length;
  const second = await rag({ question: 'where is reload queue coalesced?', top_k: 5 });
  assert.is(second.body.answer, res.body.answer);
  assert.is(fake.requests.length - again, 0);
  const other = fake.requests.length;
  const miss = await rag({ question: 'how are phone numbers masked', top_k: 5 });
  assert.is(miss.body.mode, 'graph');
  assert.is(chatsSince(other).length, 1, 'a different question is not a hit');
});

test('rewrite: weak evidence makes the graph rewrite the query and retrieve once more', async () => {
  const before = fake.requests.length;
  fake.replyWith('parseHttpHeader', 'It splits the line at the first colon [1].');
  const res = await rag({ question: 'frobnicate the widget thoroughly', top_k: 5 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'graph');
  assert.is(res.body.citations[0].path, 'src/http/header-parser.ts');
  assert.equal(chatsSince(before).map((r) => meta(r).lane), ['query_rewrite', 'answer_generation']);
  const trace = traceOf(res.body.trace);
  assert.equal(trace.events.find((e: any) => e.kind === 'rewrite').data, { from: 'frobnicate the widget thoroughly', to: 'parseHttpHeader' });
  assert.is(trace.events.filter((e: any) => e.kind === 'retrieval').length, 2);
  assert.is(trace.events.filter((e: any) => e.kind === 'grading')[0].data.weak, true);
});

test('simple: a failing model call in the graph falls back to one generate call', async () => {
  const before = fake.requests.length;
  fake.replyWith({ status: 400 }, 'Headers are split at the colon [1].');
  const res = await rag({ question: 'how does parseHttpHeader split a header line', top_k: 5 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'simple');
  assert.is(res.body.model, 'fake-gen');
  assert.is(res.body.citations[0].path, 'src/http/header-parser.ts');
  assert.is(chatsSince(before).length, 2);
  assert.ok(traceOf(res.body.trace).events.some((e: any) => e.kind === 'fallback' && e.data.from === 'graph'));
});

test('a graph that cannot be built: the simple path answers', async () => {
  const { logger } = gw.gateway;
  const config = gatewayConfig(gw.gateway.config);
  const { search, repositories, traces } = gw.gateway.surfaces.search;
  const service = new AnswerService({
    config, search, repositories, traces, logger,
    indexGeneration: async () => 'fixed',
    buildGraph: () => {
      throw new Error('graph library missing');
    },
  });
  const before = fake.requests.length;
  const result = await service.answer({ question: 'how are phone numbers masked', topK: 3 });
  assert.is(result.mode, 'simple');
  assert.is(result.citations[0]?.path, 'src/phone.py');
  assert.is(chatsSince(before).length, 1);
});

test('a hanging gateway is cut at GEN_TIMEOUT: graph, then simple, then extractive', async () => {
  await gw.gateway.config.update({ GEN_TIMEOUT: 1 });
  fake.defaultChat = { hang: true };
  try {
    const before = fake.requests.length;
    const res = await rag({ question: 'mask_phone_number last four digits', top_k: 5 });
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.body.mode, 'extractive');
    assert.is(res.body.citations[0].path, 'src/phone.py');
    const chats = chatsSince(before);
    assert.is(chats.length, 2);
    await until(() => chats.every((r) => r.aborted), 5000);
  } finally {
    fake.defaultChat = 'See [1].';
    await gw.gateway.config.update({ GEN_TIMEOUT: 60 });
  }
});

test('stream: token events, then one final event with citations, mode and run id', async () => {
  const before = fake.requests.length;
  fake.replyWith({ tokens: ['Pending ', 'requests ', 'are coalesced ', '[1].'] });
  const res = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'ReloadQueue request pending', stream: true, top_k: 5 }) });
  assert.is(res.status, 200);
  assert.ok(res.headers.get('content-type')?.startsWith('text/event-stream'));
  const events = sseEvents(await res.text());
  const tokens = events.filter((e) => e.event === 'token').map((e) => e.data.text);
  assert.equal(tokens, ['Pending ', 'requests ', 'are coalesced ', '[1].']);
  const final = events.filter((e) => e.event === 'final');
  assert.is(final.length, 1);
  assert.is(events[events.length - 1]!.event, 'final');
  assert.is(final[0]!.data.answer, 'Pending requests are coalesced [1].');
  assert.is(final[0]!.data.mode, 'graph');
  assert.is(final[0]!.data.citations[0].path, 'core/kernel/reload-queue.ts');
  const chat = chatsSince(before)[0]!;
  assert.is(chat.body.stream, true);
  assert.is(chat.headers['x-gateway-session-id'], final[0]!.data.run_id);
});

test('stream: a client that disconnects cancels the model call', async () => {
  const before = fake.requests.length;
  fake.replyWith({ tokens: ['Partial '], hang: true });
  const controller = new AbortController();
  const res = await fetch(`${gw.url}/api/rag`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'parseHttpHeader colon', stream: true }), signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('event: token')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.ok(text.includes('Partial'));
  controller.abort();
  const chat = await until(() => chatsSince(before)[0], 5000);
  await until(() => chat.aborted, 5000);
  assert.is(chat.aborted, true);
});

test('chat: the history is condensed by the model into a standalone question, then answered', async () => {
  const before = fake.requests.length;
  fake.replyWith('how does mask_phone_number hide digits', 'All digits but the last four become * [1].');
  const res = await post('/api/chat', {
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Is there phone number code?' },
      { role: 'assistant', content: 'Yes, in src/phone.py.' },
      { role: 'user', content: 'How does it hide the digits?' },
    ],
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.body.mode, 'graph');
  assert.is(res.body.citations[0].path, 'src/phone.py');
  const chats = chatsSince(before);
  assert.equal(chats.map((r) => meta(r).lane), ['chat_condense', 'answer_generation']);
  assert.ok(JSON.stringify(chats[0]!.body.messages).includes('Yes, in src/phone.py.'));
  assert.ok(JSON.stringify(chats[1]!.body.messages).includes('how does mask_phone_number hide digits'));
});

test('a new indexing run invalidates cached answers', async () => {
  writeRepoFile(demo, 'src/extra.ts', 'export const extra = 1;\n');
  await startRun(gw.url);
  await until(async () => {
    const run = await gw.gateway.surfaces.search.runStore.latest('demo');
    return run && run.state !== 'running' ? run : undefined;
  }, 60_000, 50);
  await waitForRun(gw.url, 'demo');
  const before = fake.requests.length;
  const res = await rag({ question: 'where is the reload queue coalesced', top_k: 5 });
  assert.is(res.status, 200);
  assert.is(chatsSince(before).length, 1, 'answered again, not from the cache');
});

test('bad input answers 4xx with detail, and both routes are in /openapi.json', async () => {
  const cases: Array<[string, unknown, number, string]> = [
    ['/api/rag', {}, 422, 'question'],
    ['/api/rag', { question: '   ' }, 422, 'question'],
    ['/api/rag', { question: 'x'.repeat(4001) }, 422, '4000'],
    ['/api/rag', { question: 'ok', top_k: 0 }, 422, 'top_k'],
    ['/api/rag', { question: 'ok', repo: 'nope' }, 404, 'nope'],
    ['/api/rag', { question: 'ok', repo: '../etc' }, 422, 'repo'],
    ['/api/chat', { messages: 'hi' }, 422, 'messages'],
    ['/api/chat', { messages: [] }, 422, 'messages'],
    ['/api/chat', { messages: [{ role: 'robot', content: 'hi' }] }, 422, 'role'],
    ['/api/chat', { messages: [{ role: 'user' }] }, 422, 'content'],
    ['/api/chat', { messages: [{ role: 'assistant', content: 'only me' }] }, 422, 'user'],
  ];
  for (const [route, body, status, word] of cases) {
    const res = await post(route, body);
    assert.is(res.status, status, `${route} ${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body)}`);
    assert.type(res.body.detail, 'string');
    assert.ok(res.body.detail.includes(word), `${res.body.detail} names ${word}`);
  }
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  for (const route of ['/api/rag', '/api/chat']) {
    const op = doc.paths[route].post;
    assert.ok(op.requestBody, `${route} request body`);
    assert.ok(op.responses['200'].content['application/json'].schema, `${route} response schema`);
  }
});

test.run();
