import { PluginNotAvailableError, SettingsValidationError } from '../../../core/kernel/kernel.js';
import { StorageNotFoundError, WebhookRejectedError } from '../../../core/sdk/index.js';
import { ConfigFileUnreadableError, ConfigValidationError } from '../config/registry.js';
import { httpError, httpErrorWithStatus } from './error-catalogue.js';
import type { HttpError } from './errors.js';

/** Maps the domain errors of one part of the gateway to HTTP answers; undefined for others. */
export type DomainErrorMapper = (err: unknown) => HttpError | undefined;

/**
 * Where domain errors become HTTP answers: the platform's own (below) and one mapper per
 * surface, registered by the surface's install next to its routes. The error handler asks it
 * for anything thrown that is not already an HttpError.
 */
export class DomainErrors {
  private readonly mappers: DomainErrorMapper[] = [domainErrorToHttp];

  add(mapper: DomainErrorMapper): void {
    this.mappers.push(mapper);
  }

  toHttp(err: unknown): HttpError | undefined {
    for (const mapper of this.mappers) {
      const answer = mapper(err);
      if (answer) return answer;
    }
    return undefined;
  }
}

/**
 * The platform's domain errors (kernel, configuration, storage, webhooks) as HTTP answers. A
 * route maps a domain error itself only when it knows more than the error does (the plugin in its path is the resource, so "not installed"
 * is its 404; the storage backend a fax needs has a setting name to point at).
 */
export function domainErrorToHttp(err: unknown): HttpError | undefined {
  if (err instanceof PluginNotAvailableError) return httpError('plugin_not_available', { reason: err.message });
  // a plugin settings write is validated against the plugin's schema; its routes document 400
  if (err instanceof SettingsValidationError) return httpErrorWithStatus('validation_error', 400, { issues: [{ field: err.field, problem: err.message }] });
  if (err instanceof ConfigValidationError) return httpError('validation_error', { issues: err.issues.map((i) => ({ field: i.key, problem: i.message })) });
  if (err instanceof ConfigFileUnreadableError) return httpError('config_file_unreadable', { reason: err.message });
  if (err instanceof StorageNotFoundError) return httpError('document_expired');
  if (err instanceof WebhookRejectedError) return httpErrorWithStatus('webhook_rejected', err.status, { reason: err.message });
  return undefined;
}
