import { Gateway } from '../platform/gateway/gateway.js';
import type { GatewayOptions } from '../platform/gateway/platform.js';
import { mcpAdapter } from '../mcp/install.js';
import { faxSurface } from './fax/install.js';
import { searchSurface } from './search/install.js';
import { workbenchSurface } from './workbench/install.js';

/** The surfaces of this gateway, installed in this order (they meet only through platform ports). */
export const SURFACES = { fax: faxSurface, search: searchSurface, workbench: workbenchSurface };

/** Adapters over the surfaces' routes, installed after them: MCP offers the routes marked for it as tools. */
export const ADAPTERS = { mcp: mcpAdapter };

export type SwitchboardGateway = Awaited<ReturnType<typeof createGateway>>;

/** Builds the platform, installs the fax, code-search and workbench surfaces and the MCP adapter, and starts. */
export function createGateway(options: GatewayOptions = {}) {
  return Gateway.create(options, { ...SURFACES, ...ADAPTERS });
}
