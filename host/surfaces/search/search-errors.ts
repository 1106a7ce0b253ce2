import { httpError } from '../../platform/http/error-catalogue.js';
import type { HttpError } from '../../platform/http/errors.js';
import { RunAlreadyRunningError } from './indexing/index-run-store.js';

/** The code-search surface's domain errors as HTTP answers. */
export function searchErrorToHttp(err: unknown): HttpError | undefined {
  if (err instanceof RunAlreadyRunningError) return httpError('index_run_running', { reason: err.message });
  return undefined;
}
