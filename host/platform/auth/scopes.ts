/** Every scope an API key can hold, with what it opens. `admin` implies all of them. */
export const SCOPES = {
  'fax:send': 'POST /fax',
  'fax:read': 'GET /fax/{id}',
  'inbound:list': 'GET /inbound (numbers in full only with inbound:read too)',
  'inbound:read': 'GET /inbound/{id} and its PDF',
  'webhooks:manage': 'status webhooks: /webhooks/subscriptions and /webhooks/deliveries of the key itself (the events also need fax:read or fax:send, inbound:list)',
  'keys:manage': 'mint, list, revoke and rotate API keys (only scopes the caller holds can be granted)',
  'plugins:manage': 'change plugin configuration, install and remove plugins',
  'search:read': 'GET /api/search, GET /api/index/status, GET /api/keywords, GET /api/traces*, POST /api/eval/run, POST /api/eval/runs, GET /api/eval/runs/{id}',
  'search:evaluate': 'record a named evaluation run and save a baseline (`name`, `save_as_baseline` of POST /api/eval/run and /api/eval/runs): what evaluation alerts compare',
  'search:answer': 'POST /api/rag and POST /api/chat (answers that may spend LLM gateway budget)',
  'search:index': 'POST /api/index/start (start an indexing run) and POST /api/keywords/rebuild',
  'search:admin': 'add, remove and fetch git repositories of code search: POST /api/repos, DELETE /api/repos/{name}, POST /api/repos/{name}/fetch',
  'judge:run': 'synthetic-data lab runs: POST /api/lab/runs, its retry, GET /api/lab/runs/{id}; GET /api/judges',
  admin: 'every admin endpoint, and every other scope',
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** True when `granted` opens `needed`: the scope itself, or `admin`. */
export function grants(granted: readonly string[], needed: string): boolean {
  return granted.includes('admin') || granted.includes(needed);
}
