import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { GatewayApi } from '../platform/mcp/gateway-api.js';
import { createMcpServer } from '../platform/mcp/mcp-tools.js';
import { findHostPackage } from './package-root.js';
import type { CliOutput } from './main.js';

/**
 * `switchboard mcp`: the MCP server over stdio for desktop clients, its tools requests to a running
 * gateway (SWITCHBOARD_URL) with SWITCHBOARD_API_KEY, the same tools as POST /mcp. Approvals live in
 * the gateway (POST /fax/prepare); each call is audited on stderr (stdout carries the protocol).
 */
export async function runMcpStdio(io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const baseUrl = env.SWITCHBOARD_URL || 'http://127.0.0.1:8080';
  try {
    new URL(baseUrl);
  } catch {
    io.err(`switchboard mcp: SWITCHBOARD_URL is not a URL: ${baseUrl}`);
    return 2;
  }
  const apiKey = env.SWITCHBOARD_API_KEY || undefined;
  const server = createMcpServer({
    api: new GatewayApi(baseUrl, apiKey),
    settings: {
      requireApproval: () => (env.MCP_REQUIRE_APPROVAL ?? 'true').toLowerCase() !== 'false',
      outboxDir: () => env.MCP_OUTBOX_DIR || undefined,
    },
    version: findHostPackage(import.meta.url).version,
    audit: (tool, outcome, code) => io.err(JSON.stringify({ event: 'mcp_call', tool, outcome, ...(code ? { code } : {}), transport: 'stdio', time: new Date().toISOString() })),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
  return 0;
}
