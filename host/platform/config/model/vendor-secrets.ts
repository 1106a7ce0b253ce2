import { apiSecret } from './field-kinds.js';

/** Configuration keys of credentials of model vendors and integrations, masked everywhere. */
export const VendorSecretsKeys = {
  OPENAI_API_KEY: apiSecret('API key of OpenAI.'),
  ANTHROPIC_API_KEY: apiSecret('API key of Anthropic.'),
  GOOGLE_API_KEY: apiSecret('API key of Google (Gemini).'),
  COHERE_API_KEY: apiSecret('API key of Cohere (reranking).'),
  VOYAGE_API_KEY: apiSecret('API key of Voyage AI (embeddings).'),
  LANGSMITH_API_KEY: apiSecret('API key of LangSmith tracing.'),
  LANGCHAIN_API_KEY: apiSecret('API key of LangChain tracing (older name of the LangSmith key).'),
  LANGTRACE_API_KEY: apiSecret('API key of Langtrace.'),
  OAUTH_TOKEN: apiSecret('OAuth token used by integrations that need one.'),
  GRAFANA_API_KEY: apiSecret('API key of Grafana.'),
  GRAFANA_AUTH_TOKEN: apiSecret('Auth token of Grafana (service account).'),
  MCP_API_KEY: apiSecret('Key of MCP clients (X-API-Key or Authorization: Bearer): accepted on POST /mcp and on the HTTP API with the scopes the MCP tools use and no admin one (fax:send, fax:read, inbound:list, inbound:read, search:read, search:answer, search:index). Unlike API_KEY, it does not make keys required of loopback callers.'),
};
