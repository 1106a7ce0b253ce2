import { HttpError } from './errors.js';












/**
 * Every error the HTTP API answers, by code: its status, what it means, and the message it
 * carries. Routes throw `httpError(code, params)` instead of writing messages inline, so one
 * condition has one code and one wording everywhere. docs/platform/errors.md is generated from this
 * table (host/cli/error-docs.ts); a test fails when they differ.
 */
interface CatalogueEntry<P> {
  /** The status answered; `statuses` lists the others a caller may choose (first is `status`). */
  status: number;
  statuses?: readonly number[];
  /** For docs/platform/errors.md: when this error is answered. */
  meaning: string;
  message: (params: P) => string;
}

/** A field that failed validation and why; the message names every one. */
export interface FieldIssue {
  field: string;
  problem: string;
}

const entry = <P = void>(e: CatalogueEntry<P>): CatalogueEntry<P> => e;

export const ERROR_CATALOGUE = {
  // --- the request itself
  validation_error: entry<{ issues: FieldIssue[] }>({
    status: 422,
    statuses: [422, 400],
    meaning: 'A parameter, query value or body field failed validation; the message names each failing field. 400 or 422 as the route documents.',
    message: ({ issues }) => issues.map((i) => `${i.field}: ${i.problem}`).join('; '),
  }),
  route_not_found: entry<{ method: string; path: string }>({
    status: 404,
    meaning: 'No route answers this method and path.',
    message: ({ method, path }) => `no route for ${method} ${path}`,
  }),
  payload_too_large: entry<{ what: string; limit: string }>({
    status: 413,
    meaning: 'A request body, uploaded file or fetched document is over its size limit.',
    message: ({ what, limit }) => `${what} too large: the limit is ${limit}`,
  }),
  headers_too_large: entry({
    status: 431,
    meaning: 'The request headers are over the server\'s size limit; refused before any route ran.',
    message: () => 'request headers too large',
  }),
  malformed_request: entry<{ reason: string }>({
    status: 400,
    statuses: [400, 408],
    meaning: 'The HTTP request could not be parsed (a malformed request line) or did not arrive in time (408); refused before any route ran.',
    message: ({ reason }) => reason,
  }),
  upload_not_stored: entry({
    status: 500,
    meaning: 'The upload could not be written to the server\'s disk (a disk error, not the caller\'s fault).',
    message: () => 'the upload could not be stored',
  }),
  multipart_required: entry({
    status: 400,
    meaning: 'POST /fax takes multipart/form-data only.',
    message: () => 'the request must be multipart/form-data with fields "to" and "file"',
  }),
  malformed_multipart: entry<{ reason: string }>({
    status: 400,
    meaning: 'The multipart body cannot be parsed, was cut off, or carries more than one file.',
    message: ({ reason }) => `malformed multipart request: ${reason}`,
  }),
  invalid_document: entry<{ reason: string }>({
    status: 400,
    meaning: 'The uploaded document is damaged or cannot be converted.',
    message: ({ reason }) => reason,
  }),
  unsupported_document: entry<{ reason: string }>({
    status: 415,
    meaning: 'The uploaded document is of a type the gateway does not fax (it takes PDF, text, PNG, JPEG and TIFF).',
    message: ({ reason }) => reason,
  }),

  method_not_allowed: entry<{ allowed: string }>({
    status: 405,
    meaning: 'The path exists but not for this method (the self-hosted judge server; GET and DELETE /mcp, which is stateless).',
    message: ({ allowed }) => `use ${allowed}`,
  }),
  json_body_required: entry({
    status: 415,
    meaning: 'The body must be application/json (the self-hosted judge server).',
    message: () => 'the body must be application/json',
  }),

  // --- who is calling
  unauthorized: entry<{ reason: string } | void>({
    status: 401,
    meaning: 'The route needs an API key (keys exist, or REQUIRE_API_KEY is on) and none, an unknown, a revoked or an expired one was presented.',
    message: (p) => (p ? `Invalid or missing API key (${p.reason})` : 'Invalid or missing API key'),
  }),
  loopback_only: entry<{ reason: string } | void>({
    status: 403,
    meaning: 'The route answers callers on the loopback interface only: a loopback-only route, or any non-public route while no API key exists.',
    message: (p) => (p ? p.reason : 'this endpoint answers loopback callers only'),
  }),
  host_not_allowed: entry<{ host: string }>({
    status: 421,
    meaning: 'The Host header names none of the hosts this gateway answers on non-public routes (localhost, loopback addresses, the host of PUBLIC_API_URL, ALLOWED_HOSTS): a DNS-rebinding guard.',
    message: ({ host }) => `this gateway does not answer for host "${host}" (set PUBLIC_API_URL or ALLOWED_HOSTS)`,
  }),
  cross_site_request: entry<{ reason: string }>({
    status: 403,
    meaning: 'A browser request from another site (a foreign Origin, or Sec-Fetch-Site: cross-site) to a state-changing, admin or loopback-only route; refused before the route runs.',
    message: ({ reason }) => `cross-site request refused: ${reason}`,
  }),
  unsupported_media_type: entry<{ expected: string; got: string }>({
    status: 415,
    meaning: 'The request body has a Content-Type the route does not take (JSON routes take application/json, uploads multipart/form-data).',
    message: ({ expected, got }) => `the body must be ${expected} (got ${got})`,
  }),
  insufficient_scope: entry<{ scope: string; use?: string }>({
    status: 403,
    meaning: 'The API key is valid but lacks the scope the route (or the requested use of it) needs.',
    message: ({ scope, use }) => (use ? `${use} needs scope "${scope}"` : `API key lacks scope "${scope}"`),
  }),
  token_invalid: entry({
    status: 403,
    meaning: 'The signed document link is invalid or has expired.',
    message: () => 'token invalid or expired',
  }),
  scope_beyond_caller: entry<{ verb: 'grant' | 'manage a key with'; scopes: string[] }>({
    status: 403,
    meaning: 'A key may only grant, or manage keys holding, scopes its caller holds.',
    message: ({ verb, scopes }) => `cannot ${verb} scopes the caller does not hold: ${scopes.join(', ')}`,
  }),
  would_lock_out: entry({
    status: 409,
    meaning: 'The first API key minted without API_KEY must hold `admin`: any other would lock the operator out of admin routes.',
    message: () =>
      'this would be the first API key and it lacks the "admin" scope: once a key exists, admin routes need a key, so you would be locked out. ' +
      'Mint the first key with "admin" among its scopes, or set API_KEY (a bootstrap key with every scope, in the environment or the env file) and restart, then mint this key with X-API-Key: <API_KEY>.',
  }),
  rate_limited: entry<{ limit: number }>({
    status: 429,
    meaning: 'The request budget of the key (or client address) is spent; Retry-After says when to try again.',
    message: ({ limit }) => `rate limit exceeded: ${limit} requests per minute`,
  }),
  api_key_not_found: entry({
    status: 404,
    meaning: 'No API key has this id.',
    message: () => 'API key not found',
  }),
  api_key_revoked: entry({
    status: 409,
    meaning: 'The API key is revoked and cannot be changed or rotated.',
    message: () => 'API key is revoked; mint a new one',
  }),

  // --- admin
  restart_not_allowed: entry({
    status: 403,
    meaning: 'POST /admin/restart is refused unless ADMIN_ALLOW_RESTART is true.',
    message: () => 'restart is not allowed (set ADMIN_ALLOW_RESTART=true)',
  }),
  settings_persist_disabled: entry({
    status: 403,
    meaning: 'Persisting settings needs ADMIN_SETTINGS_PERSIST_PATH.',
    message: () => 'settings persist is not enabled (set ADMIN_SETTINGS_PERSIST_PATH)',
  }),
  config_file_unreadable: entry<{ reason: string }>({
    status: 409,
    meaning: 'The configuration file exists but cannot be read; writing it would lose its content.',
    message: ({ reason }) => reason,
  }),

  // --- fax
  fax_job_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'No fax job has this id (or, for a provider callback, none sent through this provider).',
    message: ({ id }) => `fax job "${id}" not found`,
  }),
  document_expired: entry({
    status: 404,
    meaning: 'The document was removed by the artifact cleanup (ARTIFACT_TTL_DAYS, INBOUND_RETENTION_DAYS) or is gone from storage.',
    message: () => 'document expired',
  }),
  fax_never_sent: entry({
    status: 409,
    meaning: 'The job was stored while FAX_DISABLED was on and never sent, so there is no provider status to refresh.',
    message: () => 'the job was never sent (FAX_DISABLED)',
  }),
  fax_not_yet_sent: entry({
    status: 409,
    meaning: 'The job is still waiting to be dispatched.',
    message: () => 'the job has not been sent yet',
  }),
  idempotency_key_reused: entry<{ differs: string }>({
    status: 422,
    meaning: 'An Idempotency-Key of POST /fax came back with a different document, number or options than its first use (within FAX_IDEMPOTENCY_TTL_HOURS); nothing was sent.',
    message: ({ differs }) => `this Idempotency-Key was already used with a different ${differs}; use a new key for a new fax`,
  }),
  approval_required: entry({
    status: 403,
    meaning: 'FAX_REQUIRE_APPROVAL is on: POST /fax is refused; prepare the fax with POST /fax/prepare and send it with POST /fax/approvals/{id}/send.',
    message: () => 'sending needs an approval (FAX_REQUIRE_APPROVAL is on): POST /fax/prepare, then POST /fax/approvals/{id}/send',
  }),
  approval_unknown: entry({
    status: 404,
    meaning: 'No fax approval with this id was prepared by this API key (or it expired over an hour ago).',
    message: () => 'unknown approval id (prepare the fax with POST /fax/prepare or the MCP tool prepare_fax first)',
  }),
  approval_used: entry({
    status: 409,
    meaning: 'The fax approval was used already (or is being used by a send in progress): an approval sends once.',
    message: () => 'this approval was used already: prepare the fax again to send it again',
  }),
  approval_expired: entry<{ ttl: string }>({
    status: 410,
    meaning: 'The fax approval is older than MCP_APPROVAL_TTL_SECONDS.',
    message: ({ ttl }) => `this approval expired (${ttl}): prepare the fax again`,
  }),
  approval_mismatch: entry<{ differs: string }>({
    status: 422,
    meaning: 'The number or document given with a send by approval differs from the prepared one; nothing was sent.',
    message: ({ differs }) => `this approval is for another ${differs}`,
  }),
  approvals_pending_limit: entry<{ limit: number }>({
    status: 429,
    meaning: 'Too many prepared faxes wait for sending; send them or let them expire (MCP_APPROVAL_TTL_SECONDS).',
    message: ({ limit }) => `too many prepared faxes waiting (${limit}); send or let some expire first`,
  }),
  fax_not_final: entry<{ status: string }>({
    status: 409,
    meaning: 'The transmission report of a fax job exists only once the job is final (SUCCESS, FAILED or disabled).',
    message: ({ status }) => `the job is not final yet (status ${status}); the transmission report is available once it is`,
  }),
  fax_backend_unavailable: entry<{ problem: string }>({
    status: 503,
    meaning: 'The fax backend is not configured, not active, or serves inbound only; faxes are refused until it sends.',
    message: ({ problem }) => problem,
  }),
  storage_unavailable: entry<{ storageId: string; reason: string }>({
    status: 503,
    meaning: 'The storage backend (STORAGE_BACKEND) is not active.',
    message: ({ storageId, reason }) => `storage backend "${storageId}" (STORAGE_BACKEND) is not available: ${reason}`,
  }),
  callback_job_mismatch: entry({
    status: 409,
    meaning: 'A provider callback names another fax than the job its URL points at.',
    message: () => 'the callback names another fax than this job',
  }),
  webhook_rejected: entry<{ reason: string }>({
    status: 401,
    statuses: [401, 400, 403, 404, 409, 413, 422, 503],
    meaning: 'A provider webhook failed its signature or credential check, or its payload was refused; the provider plugin chooses the status.',
    message: ({ reason }) => reason,
  }),
  webhook_not_taken: entry<{ pluginId: string; kind?: 'callbacks' | 'inbound faxes' }>({
    status: 404,
    meaning: 'No fax plugin with this id takes webhooks of this kind.',
    message: ({ pluginId, kind }) => (kind ? `plugin "${pluginId}" takes no ${kind}` : `no fax plugin "${pluginId}" takes webhooks`),
  }),

  // --- inbound
  inbound_disabled: entry({
    status: 404,
    meaning: 'Inbound fax is off (INBOUND_ENABLED=false).',
    message: () => 'inbound is disabled',
  }),
  inbound_fax_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'No inbound fax has this id, or its document is gone.',
    message: ({ id }) => `inbound fax "${id}" not found`,
  }),
  media_host_not_configured: entry({
    status: 503,
    meaning: 'The provider sends documents by URL but no media host is allowed in its settings.',
    message: () => 'no media host is configured for this provider (see its mediaHosts setting)',
  }),
  media_download_failed: entry<{ reason: string }>({
    status: 502,
    meaning: "The provider's media host did not deliver the inbound document.",
    message: ({ reason }) => `file_url: ${reason}`,
  }),

  // --- plugins and the registry
  plugin_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'No plugin with this id is installed.',
    message: ({ id }) => `no plugin "${id}" is installed`,
  }),
  plugin_not_available: entry<{ reason: string }>({
    status: 503,
    meaning: 'The plugin a request needs is installed but not active (starting, failed, needs configuration, disabled); it may come back.',
    message: ({ reason }) => reason,
  }),
  plugin_builtin: entry<{ id: string; action: 'install' | 'remove' }>({
    status: 409,
    meaning: 'Built-in plugins ship with the host: they are always installed and cannot be removed.',
    message: ({ id, action }) => (action === 'install' ? `"${id}" is built in: it ships with the host and is always installed` : `"${id}" is built in and cannot be removed`),
  }),
  manifest_invalid: entry<{ id: string }>({
    status: 422,
    meaning: "The registry catalogue's manifest for this plugin fails validation; the answer adds `diagnostics`.",
    message: ({ id }) => `the catalogue manifest of "${id}" is invalid`,
  }),
  plugin_already_installed: entry<{ id: string }>({
    status: 409,
    meaning: 'The plugin is already installed.',
    message: ({ id }) => `plugin "${id}" is already installed`,
  }),
  plugin_not_installed: entry<{ id: string }>({
    status: 404,
    meaning: 'The plugin is not installed, so there is nothing to remove.',
    message: ({ id }) => `plugin "${id}" is not installed`,
  }),
  plugin_not_from_registry: entry<{ id: string; manifest: string }>({
    status: 409,
    meaning: 'The plugin was installed by hand, not from the registry; remove its manifest instead.',
    message: ({ id, manifest }) => `"${id}" was not installed from the registry (its manifest is ${manifest}); remove that file instead`,
  }),
  plugin_load_timeout: entry<{ id: string; file: string; seconds: number }>({
    status: 504,
    meaning: 'The manifest was written but the kernel did not load the plugin in time.',
    message: ({ id, file, seconds }) => `"${id}" was written to ${file} but the kernel has not loaded it within ${seconds} s`,
  }),
  plugin_unload_timeout: entry<{ id: string; seconds: number }>({
    status: 504,
    meaning: 'The manifest was removed but the kernel still lists the plugin.',
    message: ({ id, seconds }) => `"${id}" was removed but the kernel still lists it after ${seconds} s`,
  }),
  registry_entry_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'The plugin registry has no entry with this id.',
    message: ({ id }) => `no registry entry "${id}"`,
  }),
  registry_entry_invalid: entry<{ reason: string }>({
    status: 409,
    meaning: "The registry entry or its manifest cannot be used (bad id, unreadable manifest, a manifest declaring another id).",
    message: ({ reason }) => reason,
  }),
  registry_busy: entry<{ id: string }>({
    status: 409,
    meaning: 'An install or removal of this plugin is already running.',
    message: ({ id }) => `an install or removal of "${id}" is already in progress`,
  }),

  // --- search, evaluation, lab, alerts, containers
  repository_not_found: entry<{ name: string; configured: string[] }>({
    status: 404,
    meaning: 'No configured repository has this name.',
    message: ({ name, configured }) => `repo: no repository named "${name}" (configured: ${configured.join(', ')})`,
  }),
  trace_not_found: entry<{ repo: string }>({
    status: 404,
    meaning: 'The repository has no readable retrieval trace yet, or none of the name asked for.',
    message: ({ repo }) => `no readable trace for repository "${repo}"`,
  }),
  retrieval_backend_unavailable: entry<{ backend: string; reason: string }>({
    status: 503,
    meaning: 'The retrieval backend plugin is not active.',
    message: ({ backend, reason }) => `retrieval backend "${backend}" is not available: ${reason}`,
  }),
  retrieval_backend_cannot_index: entry<{ backend: string }>({
    status: 503,
    meaning: 'The selected retrieval backend has no write sessions (`openSession`, contract retrieval@1.1), so code search can neither index with it nor find anything in it; select a backend that can (RETRIEVAL_BACKEND).',
    message: ({ backend }) =>
      `retrieval backend "${backend}" cannot index code: it has no write sessions (openSession, retrieval@1.1); set RETRIEVAL_BACKEND to a backend that has them (the built-in default does)`,
  }),
  retrieval_backend_failed: entry<{ backend: string; reason: string }>({
    status: 503,
    meaning: 'The retrieval backend failed the search (a locked or damaged index file, say); the reason is given.',
    message: ({ backend, reason }) => `retrieval backend "${backend}" failed: ${reason}`,
  }),
  corpus_deleted: entry<{ corpus: string; hint: string }>({
    status: 404,
    meaning: 'The corpus (repository index) was deleted: current-state reads answer 404 until it is indexed again; its run records stay readable by id.',
    message: ({ corpus, hint }) => `corpus "${corpus}" was deleted; ${hint}`,
  }),
  run_not_found: entry<{ reason: string }>({
    status: 404,
    meaning: 'No run record of that id (or of that kind) for the corpus.',
    message: ({ reason }) => reason,
  }),
  index_run_running: entry<{ reason: string }>({
    status: 409,
    meaning: 'An indexing run for this repository is already under way.',
    message: ({ reason }) => reason,
  }),
  evaluation_run_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'No evaluation run has this id.',
    message: ({ id }) => `evaluation run ${id} not found`,
  }),
  evaluation_runs_busy: entry<{ limit: number }>({
    status: 429,
    meaning: 'As many evaluation runs as EVAL_MAX_RUNNING are already running in this gateway; retry when one has finished.',
    message: ({ limit }) => `${limit} evaluation run(s) are already running (EVAL_MAX_RUNNING); retry when one has finished`,
  }),
  shutting_down: entry({
    status: 503,
    meaning: 'The gateway is stopping and takes no new work.',
    message: () => 'the gateway is shutting down',
  }),
  lab_run_not_found: entry<{ id: string }>({
    status: 404,
    meaning: 'No lab run has this id.',
    message: ({ id }) => `lab run ${id} not found`,
  }),
  lab_run_not_failed: entry<{ id: string }>({
    status: 409,
    meaning: 'Only a failed lab run is retried.',
    message: ({ id }) => `lab run ${id} did not fail; only a failed run is retried`,
  }),
  judge_timeout: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `timeout`) did not answer in time; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (timeout): ${reason}`,
  }),
  judge_unavailable: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `unavailable`) is not active or cannot be reached; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (unavailable): ${reason}`,
  }),
  judge_rate_limited: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `rate_limited`) refused for its rate limit; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (rate_limited): ${reason}`,
  }),
  judge_http_error: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `http_error`) answered with an HTTP error; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (http_error): ${reason}`,
  }),
  judge_invalid_response: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `invalid_response`) answered something that is not a judgment; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (invalid_response): ${reason}`,
  }),
  judge_cancelled: entry<{ reason: string }>({
    status: 502,
    meaning: 'The judgment backend (SystemOneError `cancelled`) was cancelled (the gateway is stopping); nothing falls back.',
    message: ({ reason }) => `the judge could not answer (cancelled): ${reason}`,
  }),
  judge_model_not_served: entry<{ model: string; pinned: string }>({
    status: 422,
    meaning: 'The self-hosted judge server is pinned to one checkpoint and the request names another model.',
    message: ({ model, pinned }) => `model "${model}" is not served: this server is pinned to "${pinned}"`,
  }),
  judge_checkpoint_missing: entry<{ reason: string }>({
    status: 503,
    meaning: 'The self-hosted judge server has no files for the checkpoint it needs (SELFHOSTED_CHECKPOINTS_DIR).',
    message: ({ reason }) => reason,
  }),
  alert_target_not_found: entry<{ target: string }>({
    status: 404,
    meaning: 'No alert target has this id.',
    message: ({ target }) => `no alert target "${target}"; see GET /admin/integrations/webhooks`,
  }),
  remote_engine_refused: entry<{ reason: string }>({
    status: 403,
    meaning: 'DOCKER_HOST names a remote container engine; container controls act on the local one only.',
    message: ({ reason }) => reason,
  }),
  service_not_found: entry<{ reason: string }>({
    status: 404,
    meaning: 'The compose service is not configured, or has no container in the project.',
    message: ({ reason }) => reason,
  }),
  service_ambiguous: entry<{ reason: string }>({
    status: 409,
    meaning: 'More than one managed container matches the service.',
    message: ({ reason }) => reason,
  }),
  confirmation_required: entry<{ reason: string }>({
    status: 409,
    meaning: 'Acting on a core service needs `confirm` in the body.',
    message: ({ reason }) => reason,
  }),
  ownership_changed: entry<{ reason: string }>({
    status: 409,
    meaning: 'The container stopped being managed by this project between lookup and action.',
    message: ({ reason }) => reason,
  }),
  engine_unreachable: entry<{ reason: string }>({
    status: 503,
    meaning: 'No container engine answers.',
    message: ({ reason }) => reason,
  }),
  container_action_failed: entry<{ reason: string }>({
    status: 502,
    meaning: 'The container engine refused or failed the action.',
    message: ({ reason }) => reason,
  }),

  internal_error: entry({
    status: 500,
    meaning: 'An unexpected failure; it is logged, and the answer carries no internals.',
    message: () => 'internal error',
  }),
} as const;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
type ParamsOf<C extends ErrorCode> = Parameters<(typeof ERROR_CATALOGUE)[C]['message']>;

/** The catalogued error `code` with its message; throw it. */
export function httpError<C extends ErrorCode>(code: C, ...params: ParamsOf<C>): HttpError {
  const e = ERROR_CATALOGUE[code] as CatalogueEntry<unknown>;
  return new HttpError(e.status, e.message(params[0]), code);
}

/** Like httpError, at one of the other statuses the entry allows (validation 400, a plugin's webhook status). */
export function httpErrorWithStatus<C extends ErrorCode>(code: C, status: number, ...params: ParamsOf<C>): HttpError {
  const e = ERROR_CATALOGUE[code] as CatalogueEntry<unknown>;
  const allowed = e.statuses ?? [e.status];
  // a status outside the entry's list would make the docs lie: answer the documented one
  return new HttpError(allowed.includes(status) ? status : e.status, e.message(params[0]), code);
}

/** A validation_error naming one field; 422 unless the route answers validation with 400. */
export function invalid(field: string, problem: string, status: 400 | 422 = 422): HttpError {
  return httpErrorWithStatus('validation_error', status, { issues: [{ field, problem }] });
}
