import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, type TestGateway } from '../../support/gateway.js';

// /mcp is rate-limited per key like the rest of the API (MCP_REQUESTS_PER_MINUTE), and a message
// nested deeper than JSON_MAX_DEPTH is refused with a JSON-RPC error before it is parsed.
const BOOT = 'sbk_boot_mcp_limits_0123456789';
const MCP = 'sbk_mcp_limits_0123456789abcdef';
let gw: TestGateway;

const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
const post = (key: string, body: string) => fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key }, body });

test.before(async () => {
  gw = await startGateway({ API_KEY: BOOT, MCP_API_KEY: MCP, MCP_REQUESTS_PER_MINUTE: '3', JSON_MAX_DEPTH: '16', LOG_LEVEL: 'warn' });
});
test.after(async () => {
  await gw?.close();
});

test('past MCP_REQUESTS_PER_MINUTE a key gets 429 rate_limited with Retry-After; another key keeps its own budget', async () => {
  for (let i = 0; i < 3; i++) {
    const res = await post(BOOT, init);
    assert.is(res.status, 200, await res.clone().text());
  }
  const limited = await post(BOOT, init);
  assert.is(limited.status, 429);
  assert.is((await json(limited)).code, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) >= 1, `Retry-After: ${limited.headers.get('retry-after')}`);
  const other = await post(MCP, init);
  assert.is(other.status, 200, await other.clone().text());
});

test('a message nested deeper than JSON_MAX_DEPTH is answered 400 with a JSON-RPC error, and one at the limit is not refused for it', async () => {
  const message = (depth: number) => `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"q":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
  const deep = await post(MCP, message(14));
  const answer = await json(deep);
  assert.is(deep.status, 400, JSON.stringify(answer));
  assert.is(answer.jsonrpc, '2.0');
  assert.is(answer.error.code, -32600);
  assert.is(answer.error.data.code, 'json_too_deep');
  assert.match(answer.error.message, /deeper than 16 levels/);
  // 3 levels of envelope and arguments: 13 arrays make 16.
  const atLimit = await post(MCP, message(13));
  assert.not.equal((await atLimit.clone().json().catch(() => ({})))?.error?.data?.code, 'json_too_deep', await atLimit.text());
});

test.run();
