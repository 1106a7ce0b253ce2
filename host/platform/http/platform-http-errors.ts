import { PluginCrashedError, PluginNotAvailableError, SettingsValidationError } from '../../../core/kernel/kernel.js';
import { isSystemOneError } from '../../../core/sdk/judge/index.js';
import { ConfigFileUnreadableError, ConfigValidationError } from '../config/registry.js';
import type { DomainError } from '../errors/domain-error.js';
import { HttpError } from './errors.js';
import { platformErrors } from '../errors/platform-errors.js';
import { isOutage, OUTAGE_RETRY_AFTER_SECONDS } from '../errors/outage.js';
import { httpErrorMapping } from './error-mapping.js';

/** The statuses of the platform's codes, and the kernel's, the configuration's and the judges' errors as codes. */
export const PLATFORM_HTTP_ERRORS = httpErrorMapping(
  platformErrors,
  {
    validation_error: { status: 422, statuses: [422, 400] },
    route_not_found: 404,
    payload_too_large: 413,
    json_too_deep: 400,
    headers_too_large: 431,
    malformed_request: { status: 400, statuses: [400, 408] },
    method_not_allowed: 405,
    unauthorized: 401,
    loopback_only: 403,
    host_not_allowed: 421,
    cross_site_request: 403,
    unsupported_media_type: 415,
    insufficient_scope: 403,
    scope_beyond_caller: 403,
    limit_beyond_caller: 403,
    would_lock_out: 409,
    rate_limited: 429,
    api_key_not_found: 404,
    api_key_revoked: 409,
    restart_not_allowed: 403,
    settings_persist_disabled: 403,
    config_file_unreadable: 409,
    plugin_not_found: 404,
    plugin_not_available: 503,
    plugin_crashed: 503,
    plugin_builtin: 409,
    manifest_invalid: 422,
    plugin_already_installed: 409,
    plugin_not_installed: 404,
    plugin_not_from_registry: 409,
    plugin_load_timeout: 504,
    plugin_unload_timeout: 504,
    registry_entry_not_found: 404,
    registry_entry_invalid: 409,
    registry_busy: 409,
    package_invalid: 422,
    package_tampered: 422,
    package_integrity_mismatch: 422,
    package_unsigned: 422,
    package_untrusted: 422,
    package_incompatible_host: 422,
    package_fetch_failed: 502,
    package_storage_failed: 503,
    package_version_exists: 409,
    plugin_version_not_found: 404,
    plugin_version_failed: 422,
    corpus_deleted: 404,
    run_not_found: 404,
    plugins_loading: 503,
    shutting_down: 503,
    service_unavailable: 503,
    internal_error: 500,
    judge_timeout: 502,
    judge_unavailable: 502,
    judge_rate_limited: 502,
    judge_http_error: 502,
    judge_invalid_response: 502,
    judge_cancelled: 502,
  },
  translatePlatformError,
);

/**
 * Errors of the kernel and the configuration registry as the platform's codes. A route maps
 * one itself only when it knows more than the error does (the plugin in its path is the
 * resource, so "not installed" is its 404).
 */
function translatePlatformError(err: unknown): DomainError | HttpError | undefined {
  // retryable: the plugin restarts with backoff
  if (err instanceof PluginCrashedError) return new HttpError(503, err.message, 'plugin_crashed').withHeaders({ 'Retry-After': String(err.retryAfterSeconds) });
  if (err instanceof PluginNotAvailableError) return platformErrors.error('plugin_not_available', { reason: err.message });
  // a plugin settings write is validated against the plugin's schema; its routes document 400
  if (err instanceof SettingsValidationError) return platformErrors.errorWithHint('validation_error', 400, { issues: [{ field: err.field, problem: err.message }] });
  if (err instanceof ConfigValidationError) return platformErrors.error('validation_error', { issues: err.issues.map((i) => ({ field: i.key, problem: i.message })) });
  if (err instanceof ConfigFileUnreadableError) return platformErrors.error('config_file_unreadable', { reason: err.message });
  // the judge is an upstream of the request: whatever went wrong there is a 502 naming the outcome
  if (isSystemOneError(err)) return platformErrors.error(`judge_${err.outcome}`, { reason: err.message });
  // the database or the object store is down: the client may retry; no internals in the answer
  if (isOutage(err)) return platformErrors.error('service_unavailable', { what: 'a backing service (database or storage)' }).retryAfter(OUTAGE_RETRY_AFTER_SECONDS);
  return undefined;
}
