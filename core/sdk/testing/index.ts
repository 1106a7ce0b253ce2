/** switchboard/sdk/testing: start a plugin or a kernel in a test, and run conformance suites. */
export { startPlugin, type StartPluginOptions, type StartedPlugin } from './start-plugin.js';
