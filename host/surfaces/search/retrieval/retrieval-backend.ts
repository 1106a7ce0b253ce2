import type { ConfigRegistry } from '../../../platform/config/registry.js';

/** The retrieval plugin in force: RETRIEVAL_BACKEND, whose default is the built-in manifest marked default. */
export function retrievalBackendId(config: ConfigRegistry): string {
  return config.get('RETRIEVAL_BACKEND');
}
