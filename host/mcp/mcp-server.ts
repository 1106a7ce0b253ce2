import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SwitchboardClient } from '../../clients/typescript/src/index.js';
import type { McpSettings } from './mcp-settings.js';
import { registerResources } from './mcp-resources.js';
import type { RouteTool } from './route-tools.js';
import { failureCode, toolError, toolResult } from './tool-result.js';

/** What one MCP session acts with: the API as its caller's key, the tools, the MCP settings. */
export interface McpServerDeps {
  sb: SwitchboardClient;
  /** The tools, built from the gateway's /openapi.json (route-tools.ts). */
  tools(): Promise<readonly RouteTool[]> | readonly RouteTool[];
  settings: McpSettings;
  /** One record per call: the tool and its outcome, never its arguments. */
  audit(tool: string, outcome: 'ok' | 'error', code?: string): void;
  version: string;
}

/**
 * An MCP server whose tools are requests to the gateway's HTTP API (see docs/mcp.md). The tools'
 * input schemas are JSON Schemas from the route declarations, so they are served through the SDK's
 * low-level handlers (its registerTool takes zod shapes).
 */
export function createMcpServer(deps: McpServerDeps): McpServer {
  const server = new McpServer({ name: 'switchboard', version: deps.version }, { capabilities: { tools: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await deps.tools()).map((tool) => tool.definition) }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    try {
      const tool = (await deps.tools()).find((t) => t.definition.name === name);
      if (!tool) return { isError: true, content: [{ type: 'text', text: JSON.stringify({ detail: `no tool is named ${name.slice(0, 100)}`, code: 'unknown_tool' }) }] };
      const token = extra._meta?.progressToken;
      let step = 0;
      const progress = token === undefined ? undefined : (message: string) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } });
      const result = await tool.run(request.params.arguments ?? {}, { sb: deps.sb, settings: deps.settings, signal: extra.signal, ...(progress ? { progress } : {}) });
      deps.audit(name, 'ok');
      return toolResult(result);
    } catch (error) {
      deps.audit(name, 'error', failureCode(error));
      return toolError(error);
    }
  });
  registerResources(server, deps);
  return server;
}
