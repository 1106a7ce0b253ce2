import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { searchErrors } from '../search-errors.js';
import { maskUrlCredentials } from '../../../../core/config/url-credentials.js';
import { GitRemoteError } from './git-remote.js';
import { GitRepositoryInput, type GitSources } from './git-sources.js';
import type { Repositories } from './repositories.js';

const Revision = z.object({
  name: z.string(),
  kind: z.enum(['branch', 'tag']),
  commit: z.string(),
  indexed_commit: z.string().nullable().describe('The commit of the revision last indexed'),
});

const GitRepository = z.object({
  name: z.string(),
  url: z.string().describe('The remote; a user, password or token written into it shows as ***'),
  revs: z.array(z.string()),
  credential_env: z.string().nullable(),
  credential: z.literal('***').nullable().describe('"***" when a credential is kept; never the credential'),
  fetched_at: z.string().nullable(),
  error: z.string().nullable().describe('What the last fetch or index said when it failed'),
  default_branch: z.string().nullable(),
  revisions: z.array(Revision),
});

const NameParams = z.object({ name: z.string().max(200) });
const ADMIN = { scope: 'search:admin' } as const;

/** A repository as answered: a user, password or token written into the remote URL is masked, there and in the error. */
function view(entry: ReturnType<GitSources['list']>[number]): z.infer<typeof GitRepository> {
  return {
    name: entry.name,
    url: maskUrlCredentials(entry.url),
    revs: entry.revs,
    credential_env: entry.credential_env ?? null,
    credential: entry.credential ? '***' : null,
    ...entry.state,
    error: entry.state.error === null ? null : maskUrlCredentials(entry.state.error),
  };
}

/** Git repositories of code search, added, fetched and removed over the API (search:admin). */
export function registerGitRepositoryRoutes(api: HttpApi, deps: { sources: GitSources; repositories: Repositories; audit: AuditLog }): void {
  const { sources, repositories, audit } = deps;
  // Another instance of a cluster may have added or removed it: the table is read again before a 404.
  const known = async (name: string) => {
    if (!sources.get(name)) await sources.refresh();
    const entry = sources.get(name);
    if (!entry) throw searchErrors.error('repository_not_found', { name: name.slice(0, 100), configured: sources.list().map((e) => e.name) });
    return entry;
  };
  const fetchNow = async (name: string) => {
    try {
      await sources.sync(name);
    } catch (err) {
      throw searchErrors.error('git_fetch_failed', { name, reason: maskUrlCredentials((err as Error).message) });
    }
  };

  api.route(
    {
      method: 'get',
      path: '/api/repos',
      summary: 'Git repositories added over the API, with their revisions and last fetch',
      tags: ['code-search'],
      access: ADMIN,
      mcp: { name: 'list_git_repositories', description: 'Git repositories code search indexes: each one\'s branches and tags, the commit indexed and the last fetch' },
      responses: { 200: { description: 'Every git repository', schema: z.object({ repositories: z.array(GitRepository) }) } },
    },
    async () => {
      await sources.refresh();
      return { repositories: sources.list().map(view) };
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/repos',
      summary: 'Add a git repository: clone it, index its default branch and the selected branches and tags',
      description:
        'The remote must pass the outbound guard (a non-public host only when OUTBOUND_ALLOW_HOSTS names it). ' +
        'Answers when the first fetch and its index runs have ended; a failed fetch keeps the repository (fetch it again) and answers 502.',
      tags: ['code-search'],
      access: ADMIN,
      body: GitRepositoryInput,
      errors: ['repository_exists', 'git_remote_refused', 'git_fetch_failed'],
      responses: { 201: { description: 'Added, fetched and indexed', schema: GitRepository } },
    },
    async ({ body, res }) => {
      if (repositories.configured(body.name) || sources.get(body.name)) throw searchErrors.error('repository_exists', { name: body.name });
      let added;
      try {
        added = await sources.add(body);
      } catch (err) {
        if (err instanceof GitRemoteError) throw searchErrors.error('git_remote_refused', { reason: maskUrlCredentials(err.message) });
        throw err;
      }
      // Taken meanwhile, perhaps through another instance: the table's primary key decides.
      if (!added) throw searchErrors.error('repository_exists', { name: body.name });
      await audit.record('git_repository_added', { repo: body.name, url: maskUrlCredentials(body.url) });
      await fetchNow(body.name);
      res.status(201).json(view(await known(body.name)));
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/repos/:name/fetch',
      summary: 'Fetch a git repository now and re-index the revisions whose commit moved',
      tags: ['code-search'],
      access: ADMIN,
      mcp: { name: 'fetch_git_repository', description: 'Fetch a git repository now and re-index the branches and tags whose commit moved; answers once indexed', annotations: { idempotent: true, openWorld: true } },
      params: NameParams,
      errors: ['repository_not_found', 'git_fetch_failed'],
      responses: { 200: { description: 'Fetched; the revisions and the commits indexed', schema: GitRepository } },
    },
    async ({ params }) => {
      await known(params.name);
      await fetchNow(params.name);
      return view(await known(params.name));
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/api/repos/:name',
      summary: 'Remove a git repository: its mirror and exported trees go; searches no longer reach it',
      tags: ['code-search'],
      access: ADMIN,
      params: NameParams,
      errors: ['repository_not_found'],
      responses: { 200: { description: 'Removed', schema: z.object({ name: z.string(), removed: z.literal(true) }) } },
    },
    async ({ params }) => {
      await known(params.name);
      await sources.remove(params.name);
      await audit.record('git_repository_removed', { repo: params.name });
      return { name: params.name, removed: true as const };
    },
  );
}
