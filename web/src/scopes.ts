// The API's scopes (host/platform/auth/scopes.ts; test/console/keys.test.ts keeps the two lists equal).
export const SCOPES: { name: string; grants: string }[] = [
  { name: 'admin', grants: 'every admin endpoint, and every other scope' },
  { name: 'fax:send', grants: 'send faxes' },
  { name: 'fax:read', grants: 'read fax jobs' },
  { name: 'inbound:list', grants: 'list inbound faxes' },
  { name: 'inbound:read', grants: 'read inbound faxes and their PDFs' },
  { name: 'webhooks:manage', grants: 'status webhook subscriptions and deliveries of the key itself' },
  { name: 'keys:manage', grants: 'mint, list, revoke and rotate keys' },
  { name: 'plugins:manage', grants: 'configure, install and remove plugins' },
  { name: 'search:read', grants: 'search, index status, keywords, traces' },
  { name: 'search:evaluate', grants: 'record named evaluation runs and baselines' },
  { name: 'search:answer', grants: 'answers and chat (LLM budget)' },
  { name: 'search:index', grants: 'start indexing runs, rebuild keywords' },
  { name: 'search:admin', grants: 'add, remove and fetch git repositories' },
  { name: 'judge:run', grants: 'synthetic-data lab runs, the list of judges' },
];
