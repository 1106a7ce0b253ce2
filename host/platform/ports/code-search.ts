/** A repository name: what requests and REPO use; never a path. */
export const REPO_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

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
 * What the workbench reads of code search: repositories, a corpus's files (schema proposals) and
 * dropping its index. Code search provides it; the workbench provides no port back.
 */
export interface CodeSearchPort {
  /** The named repository or the default one; throws the API's 404/422 for unknown or bad names. */
  resolve(name: string | undefined): RepositoryRef;
  /** Repository-relative paths of the files indexing would read, at most `max`. */
  listFiles(repo: RepositoryRef, max: number): Promise<string[]>;
  /** Drops the repository's index; refuses while a run of it is running. */
  dropIndex(repo: RepositoryRef): Promise<void>;
}
