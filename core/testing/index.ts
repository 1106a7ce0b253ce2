/**
 * switchboard/sdk/testing (`@switchboard/sdk/testing` in the SDK package): start a plugin in a
 * test, run your kind's conformance suite, check a manifest as the host would, or start the real
 * kernel on a plugins directory. The SDK's kit (core/sdk/testing) bound to the kernel's plugin
 * runner, so the SDK itself imports nothing of the kernel.
 */
import { createTestKit } from '../sdk/testing/index.js';
import { kernelPluginRuntime } from './kernel-plugin-runtime.js';

const kit = createTestKit(kernelPluginRuntime);

export const startPlugin = kit.startPlugin;
export const conformance = kit.conformance;
export const faxConformance = conformance.fax;
export const storageConformance = conformance.storage;
export const judgeConformance = conformance.judge;
export const retrievalConformance = conformance.retrieval;
export const alertSinkConformance = conformance['alert-sink'];
export const inboundSinkConformance = conformance['inbound-sink'];
export type { StartPluginOptions, StartedPlugin, ConformanceCase, ConformanceOptions } from '../sdk/testing/index.js';
export { startTestKernel, type TestKernel, type TestKernelOptions } from './test-kernel.js';
export { lintManifests, formatLintResult, type LintResult } from './manifest-lint.js';
