/**
 * The SDK's test kit, host-free: it declares the runtime it needs (PluginRuntime). Plugin
 * authors import `switchboard/sdk/testing`, which is this kit bound to the kernel (core/testing/).
 */
export { createTestKit } from './test-kit.js';
export type { PluginRuntime, RuntimeStartOptions, RuntimeGeneration } from './plugin-runtime.js';
export type { StartPlugin, StartPluginOptions, StartedPlugin } from './start-plugin.js';
export type { ConformanceCase, ConformanceOptions, ConformanceSuites, RetrievalConformanceOptions } from './conformance.js';
