import { z } from 'zod';
import type { HttpApi, RouteInput, RouteSpec } from '../../../platform/http/api.js';

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

/** A route over one repository: declared without the `repo` query, which `repositoryRoutes` adds. */
export type RepositoryRouteSpec = Omit<RouteSpec<z.ZodType, typeof RepoQuery, z.ZodType>, 'query' | 'queryErrorStatus' | 'tags'>;

/**
 * The routes of one area that work on the repository `?repo` names: the query, its 422 and the
 * 404 of an unknown name (`repository_not_found`) are declared here once, and each handler is
 * given the resolved name.
 */
export function repositoryRoutes(api: HttpApi, repositories: RepositoryResolver, tags: string[]) {
  return {
    route(spec: RepositoryRouteSpec, handler: (repo: string, input: RouteInput<unknown, z.infer<typeof RepoQuery>, unknown>) => unknown): void {
      api.route(
        { ...spec, tags, query: RepoQuery, queryErrorStatus: 422, errors: ['repository_not_found', ...(spec.errors ?? [])] },
        (input) => handler(repositories.resolve(input.query.repo).name, input),
      );
    },
  };
}
