import { PluginNotAvailableError, SettingsValidationError } from '../../../core/kernel/kernel.js';

import { StorageNotFoundError, WebhookRejectedError } from '../../../core/sdk/index.js';

import { isSystemOneError } from '../../../core/sdk/judge/index.js';

import { ConfigFileUnreadableError, ConfigValidationError } from '../config/registry.js';

import { InvalidDocumentError, UnsupportedDocumentError } from '../../surfaces/fax/documents/errors.js';

import { RunAlreadyRunningError } from '../../surfaces/search/indexing/index-run-store.js';

import { ContainerControlError } from '../../surfaces/workbench/containers/container-controls.js';

import { RemoteEngineRefusedError } from '../../surfaces/workbench/containers/engine.js';

import { httpError, httpErrorWithStatus, type ErrorCode } from './error-catalogue.js';

import type { HttpError } from './errors.js';


const CONTAINER_CODES: Record<ContainerControlError['kind'], ErrorCode> = {
  not_found: 'service_not_found',
  ambiguous: 'service_ambiguous',
  confirmation_required: 'confirmation_required',
  ownership_changed: 'ownership_changed',
  engine_unreachable: 'engine_unreachable',
  action_failed: 'container_action_failed',
};


/**
 * The one place a domain error becomes an HTTP answer; the error handler calls it for anything
 * thrown that is not already an HttpError. A route maps a domain error itself only when it
 * knows more than the error does (the plugin in its path is the resource, so "not installed"
 * is its 404; the storage backend a fax needs has a setting name to point at).
 */
export function domainErrorToHttp(err: unknown): HttpError | undefined {
  if (err instanceof PluginNotAvailableError) return httpError('plugin_not_available', { reason: err.message });
  // a plugin settings write is validated against the plugin's schema; its routes document 400
  if (err instanceof SettingsValidationError) return httpErrorWithStatus('validation_error', 400, { issues: [{ field: err.field, problem: err.message }] });
  if (err instanceof ConfigValidationError) return httpError('validation_error', { issues: err.issues.map((i) => ({ field: i.key, problem: i.message })) });
  if (err instanceof ConfigFileUnreadableError) return httpError('config_file_unreadable', { reason: err.message });
  if (err instanceof StorageNotFoundError) return httpError('document_expired');
  if (err instanceof InvalidDocumentError) return httpError('invalid_document', { reason: err.message });
  if (err instanceof UnsupportedDocumentError) return httpError('unsupported_document', { reason: err.message });
  if (err instanceof RunAlreadyRunningError) return httpError('index_run_running', { reason: err.message });
  if (err instanceof WebhookRejectedError) return httpErrorWithStatus('webhook_rejected', err.status, { reason: err.message });
  if (err instanceof RemoteEngineRefusedError) return httpError('remote_engine_refused', { reason: err.message });
  if (err instanceof ContainerControlError) return httpError(CONTAINER_CODES[err.kind], { reason: err.message });
  // the judge is an upstream of the request: whatever went wrong there is a 502 naming the outcome
  if (isSystemOneError(err)) return httpError(`judge_${err.outcome}`, { reason: err.message });
  return undefined;
}
