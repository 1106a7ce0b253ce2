import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, readEvents, unwrap, type ServerEvent } from '../../../clients/typescript/src/index.js';
import { removeDir, tempDir, until } from '../../support/gateway.js';
import { writeRepoFile } from '../../host/surfaces/search/search-repo-fixture.js';
import { gatewayForSuite } from './client-suite.js';

const repo = tempDir('client-events-repo-');
writeRepoFile(repo, 'src/billing/invoice-total.ts', 'export function invoiceTotal(lines: number[]): number {\n  return lines.reduce((sum, line) => sum + line, 0);\n}\n');
const suite = gatewayForSuite(test, { AUDIT_LOG_ENABLED: 'true', REPOS: JSON.stringify({ billing: repo }), REPO: 'billing' });
test.after(() => removeDir(repo));

/** A text/event-stream answer delivered in exactly these chunks. */
function streamOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function all(events: AsyncIterable<ServerEvent>): Promise<ServerEvent[]> {
  const seen: ServerEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

test('the parser: any line ending, chunks split anywhere, comments skipped, multi-line data, JSON parsed, text kept, a last event without its blank line', async () => {
  const events = await all(
    readEvents(
      streamOf([': open\r', '\n\r\nevent: tok', 'en\r', '\ndata: {"text":"a"}\r', '\n\r', '\nevent: note\ndata: line one\ndata:line two\nid: 7\n\n', 'event: empty\n\n', 'data: [1,2]\r\rdata: "last"']),
    ),
  );
  assert.equal(events, [
    { event: 'token', data: { text: 'a' } },
    { event: 'note', data: 'line one\nline two', id: '7' },
    { event: 'message', data: [1, 2], id: '7' },
    { event: 'message', data: 'last', id: '7' },
  ]);
});

test('events() of GET /admin/logs/tail: each new audit record as a parsed event, heartbeats skipped; an abort ends it with AbortError', async () => {
  // The real fetch, watching the bytes go by for a heartbeat comment.
  let heartbeat = () => {};
  const watchingFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(new Request(input, init));
    const decoder = new TextDecoder();
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (decoder.decode(chunk, { stream: true }).includes(': heartbeat')) heartbeat();
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body!.pipeThrough(watch), { status: response.status, headers: response.headers });
  };
  const client = suite.client({ fetch: watchingFetch });
  const abort = new AbortController();
  const tail = client.events('GET', '/admin/logs/tail', { query: { event: 'key_minted', heartbeat_seconds: 1 }, signal: abort.signal });
  const first = tail.next();
  let arrived = false;
  void first.then(() => (arrived = true));
  // The tail only sees records made after it opened: mint until one arrives.
  let minted = 0;
  await until(async () => arrived || void (await unwrap(client.POST('/admin/api-keys', { body: { name: `tailed-${++minted}`, scopes: ['fax:read'] } }))), 10_000, 100);
  const { value } = await first;
  assert.is(value!.event, 'audit');
  const record = value!.data as { event: string; key_id: string };
  assert.is(record.event, 'key_minted');
  assert.type(record.key_id, 'string');
  // Heartbeats (comments) come every second and are not events: the next read waits past them.
  const sawHeartbeat = new Promise<void>((resolve) => (heartbeat = resolve));
  const next = tail.next();
  await sawHeartbeat;
  abort.abort();
  const ended = await next.then(
    (result) => result,
    (err: unknown) => err,
  );
  assert.is((ended as Error).name, 'AbortError', String(ended));
});

test('events() of POST /api/rag with stream: tokens, then the final answer; streamAnswer awaits its handlers', async () => {
  const client = suite.client();
  await unwrap(client.POST('/api/index/start', { body: { repo: 'billing' } }));
  await until(async () => (await unwrap(client.GET('/api/index/status', { params: { query: { repo: 'billing' } } }))).metadata.finished_at ?? undefined, 60_000, 100);
  const question = { question: 'how is an invoice total computed?', repo: 'billing' };
  const events = await all(client.events('POST', '/api/rag', { json: { ...question, stream: true } }));
  const names = events.map((e) => e.event);
  assert.ok(names.indexOf('token') >= 0 && names.at(-1) === 'final', names.join(' '));
  const final = events.at(-1)!.data as { answer: string; citations: Array<{ path: string }> };
  assert.is(events.filter((e) => e.event === 'token').map((e) => (e.data as { text: string }).text).join(''), final.answer);

  const order: string[] = [];
  const answer = await client.streamAnswer(question, {
    onToken: async (text) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(text);
    },
  });
  assert.is(order.join(''), answer.answer, 'every token handled before the answer resolved');
  assert.ok(answer.citations.some((c) => c.path === 'src/billing/invoice-total.ts'), JSON.stringify(answer.citations));

  const notAStream = await all(client.events('GET', '/health')).catch((err: unknown) => err);
  assert.instance(notAStream, ApiError);
  assert.is((notAStream as ApiError).code, 'not_event_stream');
  const unknownRepo = await all(client.events('POST', '/api/rag', { json: { question: 'x', repo: 'no-such-repo', stream: true } })).catch((err: unknown) => err);
  assert.is((unknownRepo as ApiError).status, 404, 'an error before the stream opens is the API\'s JSON error');
});

test.run();
