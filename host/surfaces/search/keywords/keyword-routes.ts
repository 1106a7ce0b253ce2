import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { principalOf } from '../../../platform/auth/access-guard.js';
import type { KeywordStore, RepoKeywords } from './keyword-store.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { repositoryRoutes, type RepositoryResolver } from '../repositories/repo-query.js';

const KeywordList = z.object({
  repo: z.string(),
  generated_at: z.string().describe('When these keywords were generated (ISO 8601)'),
  refresh_hours: z.number().describe('KEYWORDS_REFRESH_HOURS in force: a GET after this long regenerates'),
  files: z.number().int().describe('Files read to build them'),
  max_per_repo: z.number().int(),
  min_freq: z.number().int(),
  keywords: z.array(z.object({ term: z.string(), score: z.number(), df: z.number().int(), tf: z.number().int() })),
});
const KeywordSettingsView = z.object({
  max_per_repo: z.number().int(),
  min_freq: z.number().int(),
  boost: z.number(),
  refresh_hours: z.number(),
});

export interface KeywordRouteDeps {
  keywords: KeywordStore;
  repositories: RepositoryResolver;
  audit: AuditLog;
}

/**
 * GET /api/keywords, POST /api/keywords/rebuild and POST /api/keywords/reload: the
 * discriminative keywords of a repository (see keyword-store.ts beside this file).
 */
export function registerKeywordRoutes(api: HttpApi, deps: KeywordRouteDeps): void {
  const view = (entry: RepoKeywords) => ({ ...entry, refresh_hours: deps.keywords.settings().refreshHours });
  const by = (res: Parameters<typeof principalOf>[0]) => principalOf(res).keyId ?? principalOf(res).kind;
  const routes = repositoryRoutes(api, deps.repositories, ['code-search']);

  routes.route(
    {
      method: 'get',
      path: '/api/keywords',
      summary: 'Discriminative keywords of a repository, with scores and when they were generated',
      description: 'Served from the cache; regenerated first when older than KEYWORDS_REFRESH_HOURS or built under other limits.',
      access: { scope: 'search:read' },
      responses: { 200: { description: 'Keywords, best first', schema: KeywordList } },
    },
    async (repo) => view(await deps.keywords.get(repo)),
  );

  routes.route(
    {
      method: 'post',
      path: '/api/keywords/rebuild',
      summary: 'Regenerate the keywords of a repository now, ignoring the refresh window',
      access: { scope: 'search:index' },
      responses: { 200: { description: 'The regenerated keywords', schema: KeywordList } },
    },
    async (repo, { res }) => {
      const entry = await deps.keywords.rebuild(repo);
      deps.audit.record('keywords_rebuilt', { repo, by: by(res) });
      return view(entry);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/api/keywords/reload',
      summary: 'Re-read the KEYWORDS_* settings from the configuration registry',
      description: 'Keyword settings are read once at start and cached; this (or a restart) applies changed values. Run POST /admin/settings/reload first when the env file or config file changed on disk.',
      tags: ['code-search'],
      access: { scope: 'admin', administrative: true },
      responses: { 200: { description: 'The keyword settings now in force', schema: KeywordSettingsView } },
    },
    ({ res }) => {
      const s = deps.keywords.reloadSettings();
      deps.audit.record('keywords_settings_reloaded', { by: by(res) });
      return { max_per_repo: s.maxPerRepo, min_freq: s.minFreq, boost: s.boost, refresh_hours: s.refreshHours };
    },
  );
}
