import { conformanceSuites } from './conformance.js';
import type { PluginRuntime } from './plugin-runtime.js';
import { pluginStarter } from './start-plugin.js';

/** The test kit on a host's runtime: startPlugin and every kind's conformance suite. */
export function createTestKit(runtime: PluginRuntime) {
  const startPlugin = pluginStarter(runtime);
  return { startPlugin, conformance: conformanceSuites(startPlugin) };
}
