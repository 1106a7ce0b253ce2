import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createSwitchboardClient } from '../../clients/typescript/src/index.js';
import { hostVersion } from '../platform/runtime/paths.js';
import { createMcpServer } from './mcp-server.js';
import { mcpSettingsOf } from './mcp-settings.js';
import { routeTools, type RouteTool } from './route-tools.js';

/**
 * `switchboard mcp`: the MCP server over stdio for desktop clients, its tools requests to a running
 * gateway (SWITCHBOARD_URL) with SWITCHBOARD_API_KEY, built from that gateway's /openapi.json like
 * the tools of POST /mcp. Approvals live in the gateway (POST /fax/prepare); each call is audited on
 * stderr (stdout carries the protocol).
 */
export async function runMcpStdio(io: { err(line: string): void }, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const baseUrl = env.SWITCHBOARD_URL || 'http://127.0.0.1:8080';
  try {
    new URL(baseUrl);
  } catch {
    io.err(`switchboard mcp: SWITCHBOARD_URL is not a URL: ${baseUrl}`);
    return 2;
  }
  const settings = mcpSettingsOf(env);
  if (typeof settings === 'string') {
    io.err(`switchboard mcp: ${settings}`);
    return 2;
  }
  const sb = createSwitchboardClient({ baseUrl, ...(env.SWITCHBOARD_API_KEY ? { apiKey: env.SWITCHBOARD_API_KEY } : {}) });
  // Read once the client asks (the gateway may start after this process); a failed read is tried again.
  let tools: Promise<RouteTool[]> | undefined;
  const server = createMcpServer({
    sb,
    tools: () =>
      (tools ??= sb.request<object>('GET', '/openapi.json').then(routeTools, (err: unknown) => {
        tools = undefined;
        throw err;
      })),
    settings,
    version: hostVersion(),
    audit: (tool, outcome, code) => io.err(JSON.stringify({ event: 'mcp_call', tool, outcome, ...(code ? { code } : {}), transport: 'stdio', time: new Date().toISOString() })),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await server.connect(transport);
  process.stdin.once('end', () => void server.close());
  await closed;
  return 0;
}
