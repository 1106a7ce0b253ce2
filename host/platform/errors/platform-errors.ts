import type { DomainError } from './domain-error.js';
import { defineError, errorVocabulary } from './error-vocabulary.js';

/** A field that failed validation and why; the message names every one. */
export interface FieldIssue {
  field: string;
  problem: string;
}

/**
 * The platform's error codes: the request itself, who is calling, admin, plugins and the
 * registry, run accounting. Surfaces declare their own (host/surfaces/<surface>/<surface>-errors.ts);
 * docs/platform/errors.md lists them all (host/cli/error-docs.ts).
 */
export const platformErrors = errorVocabulary('platform', {
  validation_error: defineError<{ issues: FieldIssue[] }>('A parameter, query value or body field failed validation; the message names each failing field. 400 or 422 as the route documents.', ({ issues }) => issues.map((i) => `${i.field}: ${i.problem}`).join('; ')),
  route_not_found: defineError<{ method: string; path: string }>('No route answers this method and path.', ({ method, path }) => `no route for ${method} ${path}`),
  payload_too_large: defineError<{ what: string; limit: string }>('A request body, uploaded file or fetched document is over its size limit.', ({ what, limit }) => `${what} too large: the limit is ${limit}`),
  json_too_deep: defineError<{ what: string; limit: number }>('A JSON body of an API route nests arrays and objects deeper than JSON_MAX_DEPTH; refused before it is parsed. A JSON-RPC message to /mcp that does is answered 400 with a JSON-RPC error (-32600) whose `error.data.code` is this code.', ({ what, limit }) => `${what} nests arrays and objects deeper than ${limit} levels (JSON_MAX_DEPTH)`),
  headers_too_large: defineError('The request headers are over the server\'s size limit; refused before any route ran.', () => 'request headers too large'),
  malformed_request: defineError<{ reason: string }>('The HTTP request could not be parsed (a malformed request line) or did not arrive in time (408); refused before any route ran.', ({ reason }) => reason),
  method_not_allowed: defineError<{ allowed: string }>('The path exists but not for this method (GET and DELETE /mcp, which is stateless).', ({ allowed }) => `use ${allowed}`),
  unauthorized: defineError<{ reason: string } | void>('The route needs an API key (keys exist, or REQUIRE_API_KEY is on) and none, an unknown, a revoked or an expired one was presented.', (p) => (p ? `Invalid or missing API key (${p.reason})` : 'Invalid or missing API key')),
  loopback_only: defineError<{ reason: string } | void>('The route answers callers on the loopback interface only: a loopback-only route, or any non-public route while no API key exists.', (p) => (p ? p.reason : 'this endpoint answers loopback callers only')),
  host_not_allowed: defineError<{ host: string }>('The Host header names none of the hosts this gateway answers on non-public routes (localhost, loopback addresses, the host of PUBLIC_API_URL, ALLOWED_HOSTS): a DNS-rebinding guard.', ({ host }) => `this gateway does not answer for host "${host}" (set PUBLIC_API_URL or ALLOWED_HOSTS)`),
  cross_site_request: defineError<{ reason: string }>('A browser request from another site (a foreign Origin, or Sec-Fetch-Site: cross-site) to a state-changing, admin or loopback-only route; refused before the route runs.', ({ reason }) => `cross-site request refused: ${reason}`),
  unsupported_media_type: defineError<{ expected: string; got: string }>('The request body has a Content-Type the route does not take (JSON routes take application/json, uploads multipart/form-data).', ({ expected, got }) => `the body must be ${expected} (got ${got})`),
  insufficient_scope: defineError<{ scope: string; use?: string }>('The API key is valid but lacks the scope the route (or the requested use of it) needs.', ({ scope, use }) => (use ? `${use} needs scope "${scope}"` : `API key lacks scope "${scope}"`)),
  scope_beyond_caller: defineError<{ verb: 'grant' | 'manage a key with'; scopes: string[] }>('A key may only grant, or manage keys holding, scopes its caller holds.', ({ verb, scopes }) => `cannot ${verb} scopes the caller does not hold: ${scopes.join(', ')}`),
  limit_beyond_caller: defineError<{ limits: string[] }>('A key confined by limits may only give keys the same limits or narrower ones.', ({ limits }) => `cannot give a key limits wider than the caller's: ${limits.join('; ')}`),
  would_lock_out: defineError(
    'The first API key minted without API_KEY must hold `admin`: any other would lock the operator out of admin routes.',
    () =>
      'this would be the first API key and it lacks the "admin" scope: once a key exists, admin routes need a key, so you would be locked out. ' +
      'Mint the first key with "admin" among its scopes, or set API_KEY (a bootstrap key with every scope, in the environment or the env file) and restart, then mint this key with X-API-Key: <API_KEY>.',
  ),
  rate_limited: defineError<{ limit: number }>('The request budget of the key (or client address) is spent; Retry-After says when to try again.', ({ limit }) => `rate limit exceeded: ${limit} requests per minute`),
  api_key_not_found: defineError('No API key has this id.', () => 'API key not found'),
  api_key_revoked: defineError('The API key is revoked and cannot be changed or rotated.', () => 'API key is revoked; mint a new one'),
  restart_not_allowed: defineError('POST /admin/restart is refused unless ADMIN_ALLOW_RESTART is true.', () => 'restart is not allowed (set ADMIN_ALLOW_RESTART=true)'),
  settings_persist_disabled: defineError('Persisting settings needs ADMIN_SETTINGS_PERSIST_PATH.', () => 'settings persist is not enabled (set ADMIN_SETTINGS_PERSIST_PATH)'),
  config_file_unreadable: defineError<{ reason: string }>('The configuration file exists but cannot be read; writing it would lose its content.', ({ reason }) => reason),
  plugin_not_found: defineError<{ id: string }>('No plugin with this id is installed.', ({ id }) => `no plugin "${id}" is installed`),
  plugin_not_available: defineError<{ reason: string }>('The plugin a request needs is installed but not active (starting, failed, needs configuration, disabled); it may come back.', ({ reason }) => reason),
  plugin_crashed: defineError<{ reason: string }>('The isolated plugin serving the request stopped while serving it (crashed, over its memory limit or call deadline); it restarts with backoff: retry after Retry-After.', ({ reason }) => reason),
  plugin_builtin: defineError<{ id: string; action: 'install' | 'remove' }>('Built-in plugins ship with the host: they are always installed and cannot be removed.', ({ id, action }) => (action === 'install' ? `"${id}" is built in: it ships with the host and is always installed` : `"${id}" is built in and cannot be removed`)),
  manifest_invalid: defineError<{ id: string }>("The registry catalogue's manifest for this plugin fails validation; the answer adds `diagnostics`.", ({ id }) => `the catalogue manifest of "${id}" is invalid`),
  plugin_already_installed: defineError<{ id: string }>('The plugin is already installed.', ({ id }) => `plugin "${id}" is already installed`),
  plugin_not_installed: defineError<{ id: string }>('The plugin is not installed, so there is nothing to remove.', ({ id }) => `plugin "${id}" is not installed`),
  plugin_not_from_registry: defineError<{ id: string; manifest: string }>('The plugin was installed by hand, not from the registry; remove its manifest instead.', ({ id, manifest }) => `"${id}" was not installed from the registry (its manifest is ${manifest}); remove that file instead`),
  plugin_load_timeout: defineError<{ id: string; file: string; seconds: number }>('The manifest was written but the kernel did not load the plugin in time.', ({ id, file, seconds }) => `"${id}" was written to ${file} but the kernel has not loaded it within ${seconds} s`),
  plugin_unload_timeout: defineError<{ id: string; seconds: number }>('The manifest was removed but the kernel still lists the plugin.', ({ id, seconds }) => `"${id}" was removed but the kernel still lists it after ${seconds} s`),
  registry_entry_not_found: defineError<{ id: string }>('The plugin registry has no entry with this id.', ({ id }) => `no registry entry "${id}"`),
  registry_entry_invalid: defineError<{ reason: string }>("The registry entry or its manifest cannot be used (bad id, unreadable manifest, a manifest declaring another id).", ({ reason }) => reason),
  registry_busy: defineError<{ id: string }>('An install or removal of this plugin is already running.', ({ id }) => `an install or removal of "${id}" is already in progress`),
  package_invalid: defineError<{ reason: string }>('The upload or download is not a plugin package (gzip tar with files.json and manifest.json), or its manifest fails validation; nothing was written.', ({ reason }) => `not an installable plugin package: ${reason}`),
  package_tampered: defineError<{ reason: string }>("A file of the package does not match its SHA-256 in files.json, or its signature does not verify against the package digest; nothing was written.", ({ reason }) => `the package was altered after it was packed or signed: ${reason}`),
  package_integrity_mismatch: defineError<{ expected: string; got: string }>("The package's bytes do not hash to the `integrity` given with it; nothing was written.", ({ expected, got }) => `integrity mismatch: expected ${expected}, the package is ${got}`),
  package_unsigned: defineError<{ id: string }>('PLUGIN_SIGNATURES is `required` and the package has no signature; nothing was written.', ({ id }) => `the package of "${id}" is not signed and PLUGIN_SIGNATURES is required`),
  package_untrusted: defineError<{ id: string; signer: string }>('PLUGIN_SIGNATURES is `required` and the package is signed by a key not in PLUGIN_TRUSTED_KEYS; nothing was written.', ({ id, signer }) => `the package of "${id}" is signed by ${signer}, which is not in PLUGIN_TRUSTED_KEYS`),
  package_incompatible_host: defineError<{ id: string; range: string; host: string }>("The package's manifest asks for a host version range this host is not in; nothing was written.", ({ id, range, host }) => `"${id}" needs host ${range}; this host is ${host}`),
  package_fetch_failed: defineError<{ reason: string }>('The package URL could not be fetched (refused address, not https, an error status, over the size limit).', ({ reason }) => `the package could not be fetched: ${reason}`),
  package_storage_failed: defineError<{ reason: string }>("A cluster's storage backend (STORAGE_BACKEND) did not take the package's bytes (nothing was recorded) or did not give them back to an instance that lacked them (the version did not change).", ({ reason }) => `the cluster's storage backend failed on the package: ${reason}`),
  package_version_exists: defineError<{ id: string; version: string }>('This version of the plugin is already installed with other bytes; a version is immutable once installed.', ({ id, version }) => `"${id}" ${version} is already installed with another digest`),
  plugin_version_not_found: defineError<{ id: string; version: string }>('No installed package of the plugin has this version (or there is no earlier one to roll back to).', ({ id, version }) => `no installed version ${version} of "${id}"`),
  plugin_version_failed: defineError<{ id: string; version: string; reason: string }>('The version was installed but did not start; the previous version stays current and serving.', ({ id, version, reason }) => `"${id}" ${version} did not start (${reason}); the previous version stays current`),
  corpus_deleted: defineError<{ corpus: string; hint: string }>('The corpus (repository index) was deleted: current-state reads answer 404 until it is indexed again; its run records stay readable by id.', ({ corpus, hint }) => `corpus "${corpus}" was deleted; ${hint}`),
  run_not_found: defineError<{ reason: string }>('No run record of that id (or of that kind) for the corpus.', ({ reason }) => reason),
  plugins_loading: defineError('The gateway is starting and its plugins are not loaded yet: routes that depend on them (webhooks, /openapi.json, /mcp) answer this; Retry-After says when to try again.', () => 'the gateway is starting: its plugins are loading'),
  shutting_down: defineError('The gateway is stopping and takes no new work; Retry-After says when to try again (another instance, or this one restarted).', () => 'the gateway is shutting down'),
  service_unavailable: defineError<{ what: string }>('A service the request needs (the database, the object store) cannot be reached right now; nothing was changed that a retry would repeat wrongly. Retry-After says when to try again.', ({ what }) => `${what} cannot be reached right now; try again shortly`),
  internal_error: defineError('An unexpected failure; it is logged, and the answer carries no internals.', () => 'internal error'),
  // the judgment backend (system_one.provider): whatever went wrong there is a 502 naming the outcome
  judge_timeout: defineError<{ reason: string }>('The judgment backend (SystemOneError `timeout`) did not answer in time; nothing falls back.', ({ reason }) => `the judge could not answer (timeout): ${reason}`),
  judge_unavailable: defineError<{ reason: string }>('The judgment backend (SystemOneError `unavailable`) is not active or cannot be reached; nothing falls back.', ({ reason }) => `the judge could not answer (unavailable): ${reason}`),
  judge_rate_limited: defineError<{ reason: string }>('The judgment backend (SystemOneError `rate_limited`) refused for its rate limit; nothing falls back.', ({ reason }) => `the judge could not answer (rate_limited): ${reason}`),
  judge_http_error: defineError<{ reason: string }>('The judgment backend (SystemOneError `http_error`) answered with an HTTP error; nothing falls back.', ({ reason }) => `the judge could not answer (http_error): ${reason}`),
  judge_invalid_response: defineError<{ reason: string }>('The judgment backend (SystemOneError `invalid_response`) answered something that is not a judgment; nothing falls back.', ({ reason }) => `the judge could not answer (invalid_response): ${reason}`),
  judge_cancelled: defineError<{ reason: string }>('The judgment backend (SystemOneError `cancelled`) was cancelled (the gateway is stopping); nothing falls back.', ({ reason }) => `the judge could not answer (cancelled): ${reason}`),
});

/** A value of the request's content failed validation (answered 422 where the route documents it). */
export function invalidInput(field: string, problem: string): DomainError {
  return platformErrors.error('validation_error', { issues: [{ field, problem }] });
}

/** A malformed value of the request itself (a form field, a parameter): answered 400. */
export function malformedInput(field: string, problem: string): DomainError {
  return platformErrors.errorWithHint('validation_error', 400, { issues: [{ field, problem }] });
}
