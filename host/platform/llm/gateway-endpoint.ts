import type { ConfigRegistry } from '../config/registry.js';

/**
 * Where the LLM gateway is and what may be sent there, as plain data (it crosses to the
 * indexer child). The environment's key goes only to a URL the operator fixed (environment or
 * the built-in default); a URL written at run time gets no such key, and its address passes
 * the outbound guard.
 */
export interface LlmGatewayEndpoint {
  /** LLM_GATEWAY_URL. */
  baseUrl: string;
  /** LLM_GATEWAY_API_KEY, when it may be sent to baseUrl. */
  apiKey?: string;
  /** LLM_GATEWAY_URL was written at run time (the config file): its address is checked after DNS. */
  runtimeUrl: boolean;
  /** Why the environment's key is withheld; every call is refused with this reason. */
  withheld?: string;
}

/** The endpoint as the configuration says now (read per use, so a reload applies). */
export function llmGatewayEndpoint(config: ConfigRegistry): LlmGatewayEndpoint {
  const { source } = config.effective();
  const baseUrl = config.get('LLM_GATEWAY_URL');
  const runtimeUrl = source.LLM_GATEWAY_URL !== 'env' && source.LLM_GATEWAY_URL !== 'default';
  const apiKey = config.get('LLM_GATEWAY_API_KEY');
  if (apiKey && source.LLM_GATEWAY_API_KEY === 'env' && runtimeUrl) {
    return {
      baseUrl,
      runtimeUrl,
      withheld: `LLM_GATEWAY_API_KEY comes from the environment and is sent only to an LLM_GATEWAY_URL given there too; LLM_GATEWAY_URL was set at run time (${source.LLM_GATEWAY_URL}), so no call is made: set LLM_GATEWAY_URL in the environment, or remove it from the config file`,
    };
  }
  return { baseUrl, ...(apiKey ? { apiKey } : {}), runtimeUrl };
}
