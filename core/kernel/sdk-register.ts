/**
 * `node --import <host>/dist/core/kernel/sdk-register.js <file>`: runs a module with the host's
 * SDK resolver installed, so `switchboard/sdk` and `switchboard/sdk/testing` resolve to this
 * host's build from a folder that has no switchboard installed (`switchboard plugins test` runs
 * a plugin's own test files this way).
 */
import { installSdkResolver } from './sdk-resolver.js';

installSdkResolver();
