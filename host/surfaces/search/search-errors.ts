import { defineError, errorVocabulary } from '../../platform/errors/error-vocabulary.js';

/** The code-search surface's error codes: repositories, retrieval, index runs, traces, evaluation. Their HTTP answers: http/search-http-errors.ts. */
export const searchErrors = errorVocabulary('search', {
  repository_not_found: defineError<{ name: string; configured: string[] }>('No configured repository has this name.', ({ name, configured }) => `repo: no repository named "${name}" (configured: ${configured.join(', ')})`),
  trace_not_found: defineError<{ repo: string }>('The repository has no readable retrieval trace yet, or none of the name asked for.', ({ repo }) => `no readable trace for repository "${repo}"`),
  retrieval_backend_unavailable: defineError<{ backend: string; reason: string }>('The retrieval backend plugin is not active.', ({ backend, reason }) => `retrieval backend "${backend}" is not available: ${reason}`),
  retrieval_backend_cannot_index: defineError<{ backend: string }>(
    'The selected retrieval backend has no write sessions (`openSession`, contract retrieval@1.1), so code search can neither index with it nor find anything in it; select a backend that can (RETRIEVAL_BACKEND).',
    ({ backend }) =>
      `retrieval backend "${backend}" cannot index code: it has no write sessions (openSession, retrieval@1.1); set RETRIEVAL_BACKEND to a backend that has them (the built-in default does)`,
  ),
  retrieval_backend_failed: defineError<{ backend: string; reason: string }>('The retrieval backend failed the search (a locked or damaged index file, say); the reason is given.', ({ backend, reason }) => `retrieval backend "${backend}" failed: ${reason}`),
  index_run_running: defineError<{ reason: string }>('An indexing run for this repository is already under way.', ({ reason }) => reason),
  query_invalid: defineError<{ position: number; reason: string }>('The search query is malformed (docs/search/code-search.md "Query language"); the 1-based character position and what is wrong are given.', ({ position, reason }) => `query: at position ${position}: ${reason}`),
  revision_not_indexed: defineError<{ repo: string; rev: string; indexed: string[] }>('The repository has no index of this revision (branch or tag); the indexed revisions are listed.', ({ repo, rev, indexed }) => `repository "${repo}" has no index of revision "${rev}" (indexed: ${indexed.join(', ') || 'none'})`),
  repository_exists: defineError<{ name: string }>('A repository (from REPOS or added over the API) already has this name.', ({ name }) => `a repository named "${name}" already exists`),
  git_remote_refused: defineError<{ reason: string }>('The git remote is not usable: not a git URL (https, ssh, git, file:// or an absolute path), or its host is refused by the outbound guard (OUTBOUND_ALLOW_HOSTS).', ({ reason }) => reason),
  git_fetch_failed: defineError<{ name: string; reason: string }>('Cloning or fetching the git repository, or indexing a revision of it, failed; git\'s own words (credentials masked) are given.', ({ name, reason }) => `git repository "${name}": ${reason}`),
  code_index_missing: defineError<{ repo: string }>('The repository has no code index yet (exact search, symbols and files read from it): run an index run first.', ({ repo }) => `repository "${repo}" has no code index yet; index it with POST /api/index/start`),
  file_not_indexed: defineError<{ path: string; reason: string }>('The path is not a file or directory of the indexed revision, or is refused (outside the repository, binary, too large); the reason is given.', ({ path, reason }) => `${path}: ${reason}`),
  evaluation_run_not_found: defineError<{ id: string }>('No evaluation run has this id.', ({ id }) => `evaluation run ${id} not found`),
  evaluation_runs_busy: defineError<{ limit: number }>('As many evaluation runs as EVAL_MAX_RUNNING are already running in this gateway; retry when one has finished.', ({ limit }) => `${limit} evaluation run(s) are already running (EVAL_MAX_RUNNING); retry when one has finished`),
});
