import type { Surface } from '../platform/gateway/surface.js';
import { MCP_SETTINGS } from './mcp-settings.js';
import { registerMcpRoute } from './mcp-route.js';

/**
 * The MCP adapter, installed like a surface after the surfaces: its settings, and POST /mcp, whose
 * tools are the routes marked for MCP. It imports the platform and the client, never a surface.
 */
export const mcpAdapter: Surface<void> = {
  name: 'mcp',
  settings: MCP_SETTINGS,
  install: (platform) => registerMcpRoute(platform),
};
