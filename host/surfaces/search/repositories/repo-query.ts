import { z } from 'zod';

/**
 * The `repo` query parameter of code-search routes. Any text up to 200 characters gets through
 * validation so the repository resolver answers: 422 for a name that is not plain, 404 for an
 * unknown one. It is a name only; no request ever chooses a path.
 */
export const RepoQuery = z.object({
  repo: z.string().max(200).optional().describe('Repository name (a key of REPOS); REPO when absent'),
});

/** What code-search routes need of the repositories (REPOS / REPO). */
export interface RepositoryResolver {
  resolve(name: string | undefined): { name: string; dir: string };
}
