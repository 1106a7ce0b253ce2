import type { DomainError } from '../../../platform/errors/domain-error.js';
import { httpErrorMapping } from '../../../platform/http/error-mapping.js';
import { RunAlreadyRunningError } from '../indexing/index-run-store.js';
import { searchErrors } from '../search-errors.js';

/** The code-search surface's codes as HTTP answers. */
export const SEARCH_HTTP_ERRORS = httpErrorMapping(
  searchErrors,
  {
    repository_not_found: 404,
    trace_not_found: 404,
    retrieval_backend_unavailable: 503,
    retrieval_backend_cannot_index: 503,
    retrieval_backend_failed: 503,
    index_run_running: 409,
    query_invalid: 400,
    revision_not_indexed: 404,
    code_index_missing: 409,
    repository_exists: 409,
    git_remote_refused: 422,
    git_fetch_failed: 502,
    file_not_indexed: 404,
    evaluation_run_not_found: 404,
    evaluation_runs_busy: 429,
  },
  translateSearchError,
);

function translateSearchError(err: unknown): DomainError | undefined {
  if (err instanceof RunAlreadyRunningError) return searchErrors.error('index_run_running', { reason: err.message });
  return undefined;
}
