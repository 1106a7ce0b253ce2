import { configModelOf } from '../platform/gateway/platform.js';
import type { ConfigModel } from '../platform/config/config-model.js';
import { MCP_SETTINGS } from '../mcp/mcp-settings.js';
import { FAX_SETTINGS } from './fax/fax-settings.js';
import { SEARCH_SETTINGS } from './search/search-settings.js';
import { WORKBENCH_SETTINGS } from './workbench/workbench-settings.js';

/**
 * The configuration model of this gateway, from the settings of the surfaces and the MCP adapter
 * alone: `npm start` reads the configuration with it before the surfaces' code loads (it binds the
 * port first), and the command line reads it without building a gateway. The install modules
 * declare the same sections; the gateway refuses a configuration that lacks one of them.
 */
export function gatewayConfigModel(): ConfigModel {
  return configModelOf([FAX_SETTINGS, SEARCH_SETTINGS, WORKBENCH_SETTINGS, MCP_SETTINGS].map((settings) => ({ settings })));
}
