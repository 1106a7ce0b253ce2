/** A repository name: what requests and REPO use; never a path. */
export const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** An indexing run as other surfaces read it. */
export interface IndexRunRecord {
  id: string;
  repo: string;
  /** running | finished | failed | interrupted */
  state: string;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** A repository (a corpus) as code search resolves it from REPOS / REPO. */
export interface RepositoryRef {
  name: string;
  dir: string;
}

/** The repository name rule every surface that names a corpus uses: letters, digits, ".", "_", "-". */
export function isRepoName(name: string): boolean {
  return REPO_NAME.test(name) && !name.includes('..');
}

/**
 * What the workbench's run accounting reads of code search: repositories, index runs, the
 * corpus's files and dropping its index. Code search provides it.
 */
export interface CodeSearchPort {
  /** The named repository or the default one; throws the API's 404/422 for unknown or bad names. */
  resolve(name: string | undefined): RepositoryRef;
  indexRuns: {
    get(runId: string): Promise<IndexRunRecord | undefined>;
    latest(corpusId: string): Promise<IndexRunRecord | undefined>;
    running(corpusId: string): Promise<IndexRunRecord | undefined>;
  };
  /** Repository-relative paths of the files indexing would read, at most `max`. */
  listFiles(repo: RepositoryRef, max: number): Promise<string[]>;
  /** Drops the repository's index; refuses while a run of it is running. */
  dropIndex(repo: RepositoryRef): Promise<void>;
}
