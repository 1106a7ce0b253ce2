// Times are ISO 8601 text where clients see them, epoch milliseconds where the code compares.

/** One indexing run of a repository (host/surfaces/search/indexing/index-run-store.ts). */
export interface IndexRunTable {
  id: string;
  repo: string;
  /** `index` until the indexer knows: then `full` (empty index) or `incremental`. */
  kind: string;
  /** running | finished | failed | interrupted */
  state: string;
  enrich: number;
  files_seen: number;
  files_changed: number;
  files_removed: number;
  files_skipped: number;
  chunks: number;
  vectors: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Epoch ms of the supervisor's last sign of life; a stale running row was interrupted. */
  heartbeat_at: number;
}

export interface EvalRunTable {
  id: string;
  name: string;
  summary: string;
  baseline: number;
  created_at: number;
}

/** One golden-set evaluation run in the background (host/surfaces/search/evaluation/eval-job-store.ts). */
export interface EvaluationJobTable {
  id: string;
  /** running | finished | failed | interrupted */
  state: string;
  /** Questions selected for the run; `done` of them answered so far. */
  questions: number;
  done: number;
  name: string | null;
  baseline: number;
  /** JSON: the full report once finished. */
  report: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Epoch ms of the owner's last progress; a stale running row was interrupted. */
  heartbeat_at: number;
}

/** A git repository added over the API (host/surfaces/search/repositories/git-repository-store.ts). */
export interface GitRepositoryTable {
  name: string;
  url: string;
  /** JSON array: the branch and tag names or globs indexed besides the default branch. */
  revs: string;
  credential_env: string | null;
  /** The credential itself: a secret, never in an API body (as webhook subscriptions' secrets). */
  credential: string | null;
  /** JSON: the last fetch by any instance (fetched_at, error, default_branch, revisions with their commits). */
  state: string;
  created_at: string;
}

/** The code-search surface's tables (search-migrations.ts creates them). */
export type SearchTables = {
  index_runs: IndexRunTable;
  eval_runs: EvalRunTable;
  evaluation_jobs: EvaluationJobTable;
  git_repositories: GitRepositoryTable;
};
