import type { ConfigRegistry, ConfigValues } from '../../host/platform/config/registry.js';
import { FAX_SETTINGS } from '../../host/surfaces/fax/fax-settings.js';
import { SEARCH_SETTINGS } from '../../host/surfaces/search/search-settings.js';
import { WORKBENCH_SETTINGS } from '../../host/surfaces/workbench/workbench-settings.js';
import { MCP_SETTINGS } from '../../host/mcp/mcp-settings.js';

export { gatewayConfigModel } from '../../host/surfaces/settings.js';

/** A gateway's configuration typed for every key: the platform's, each surface's and the MCP adapter's. */
export function gatewayConfig<V extends ConfigValues>(config: ConfigRegistry<V>) {
  return config.withSection(FAX_SETTINGS).withSection(SEARCH_SETTINGS).withSection(WORKBENCH_SETTINGS).withSection(MCP_SETTINGS);
}
