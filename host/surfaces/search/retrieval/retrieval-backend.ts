import type { ConfigRegistry } from '../../../platform/config/registry.js';

/** The built-in backend serves code search when RETRIEVAL_BACKEND is unset. */
export const DEFAULT_RETRIEVAL_BACKEND = 'retrieval-sqlite';

export function retrievalBackendId(config: ConfigRegistry): string {
  return config.get('RETRIEVAL_BACKEND') ?? DEFAULT_RETRIEVAL_BACKEND;
}
