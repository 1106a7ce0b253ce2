import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { json, startGateway, type TestGateway } from '../../../support/gateway.js';

// Out of the box (no audit setting) admin writes and MCP calls are recorded in the database and
// read back by GET /admin/logs; AUDIT_LOG_ENABLED=false records none.

async function adminWriteAndMcpCall(gw: TestGateway): Promise<Array<{ event: string; tool?: string }>> {
  const res = await fetch(`${gw.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FAX_PAPER_SIZE: 'a4' }) });
  assert.is(res.status, 200, await res.text());
  const client = new Client({ name: 'audit-default-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
  try {
    const result = await client.callTool({ name: 'list_alerts', arguments: {} });
    assert.not.ok(result.isError, JSON.stringify(result));
  } finally {
    await client.close();
  }
  await gw.gateway.platform.audit.flush();
  return (await json(await fetch(`${gw.url}/admin/logs?limit=100`))).records;
}

test('with no setting, an admin write and an MCP call are in the database audit log', async () => {
  const gw = await startGateway({ FAX_DISABLED: 'true' }, { watch: false });
  try {
    const records = await adminWriteAndMcpCall(gw);
    assert.ok(records.some((r) => r.event === 'config_changed'), JSON.stringify(records));
    assert.ok(records.some((r) => r.event === 'mcp_call' && r.tool === 'list_alerts'), JSON.stringify(records));
    const status = await json(await fetch(`${gw.url}/admin/diagnostics/run`, { method: 'POST' }));
    assert.is(status.settings.audit_enabled, true);
  } finally {
    await gw.close();
  }
});

test('AUDIT_LOG_ENABLED=false records nothing', async () => {
  const gw = await startGateway({ FAX_DISABLED: 'true', AUDIT_LOG_ENABLED: 'false' }, { watch: false });
  try {
    assert.equal(await adminWriteAndMcpCall(gw), []);
  } finally {
    await gw.close();
  }
});

test.run();
