/** switchboard/sdk/testing: start a plugin in a test, and run your kind's conformance suite. */
export { startPlugin, type StartPluginOptions, type StartedPlugin } from './start-plugin.js';
export {
  conformance,
  faxConformance,
  storageConformance,
  judgeConformance,
  retrievalConformance,
  alertSinkConformance,
  type ConformanceCase,
  type ConformanceOptions,
} from './conformance.js';
export { startTestKernel, type TestKernel, type TestKernelOptions } from './test-kernel.js';
