import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { json, startGateway, type TestGateway } from '../../support/gateway.js';

// A gateway on `::` reached at 127.0.0.1: its side of the connection is ::ffff:127.0.0.1, a Host
// the guard refuses (421), so tools that called back at the socket address all failed there.
const BOOT = 'boot-admin-key-for-listen-tests';
let gw: TestGateway;

async function call(key: string, name: string, args: Record<string, unknown> = {}): Promise<{ isError?: boolean; body: any }> {
  const client = new Client({ name: 'listen-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { 'X-API-Key': key } } }));
  try {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
    return { isError: result.isError, body: JSON.parse(result.content[0]!.text) };
  } finally {
    await client.close();
  }
}

test.before(async () => {
  gw = await startGateway({ FAX_DISABLED: 'true', API_KEY: BOOT, AUDIT_LOG_ENABLED: 'true', LOG_LEVEL: 'info' }, { listenHost: '::' });
});
test.after(async () => {
  await gw.close();
});

test('a gateway listening on :: answers MCP tool calls; the guard still refuses a foreign Host on /mcp itself', async () => {
  const plugins = await call(BOOT, 'list_plugins');
  assert.not.ok(plugins.isError, JSON.stringify(plugins.body));
  assert.ok(Array.isArray(plugins.body.plugins), JSON.stringify(plugins.body));
  const missing = await call(BOOT, 'get_fax_status', { job_id: '00000000-0000-4000-8000-000000000000' });
  assert.ok(missing.isError);
  assert.is(missing.body.code, 'fax_job_not_found', JSON.stringify(missing.body));
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(`${gw.url}/mcp`, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', 'x-api-key': BOOT } }, (res) => (res.resume(), resolve(res.statusCode!)));
    req.on('error', reject);
    req.end('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  });
  assert.is(status, 421);
});

test('scopes and audit are the caller\'s: a search-only key is refused fax tools, and the call is audited under its key', async () => {
  const minted = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': BOOT }, body: JSON.stringify({ name: 'search-only', scopes: ['search:read'] }) });
  const { token, key_id } = await json(minted);
  const refused = await call(token, 'list_faxes');
  assert.ok(refused.isError);
  assert.is(refused.body.code, 'insufficient_scope', JSON.stringify(refused.body));
  const audits = gw.logs.filter((l) => l.includes(`"key_id":"${key_id}"`));
  assert.ok(audits.some((l) => l.includes('"mcp_call"') && l.includes('"tool":"list_faxes"') && l.includes('"outcome":"error"')), audits.join('\n'));
  assert.ok(audits.some((l) => l.includes('"scope_denied"') && l.includes('"path":"/admin/fax-jobs"')), audits.join('\n'));
});

test.run();
