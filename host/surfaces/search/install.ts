import path from 'node:path';
import { defineSurface } from '../../platform/gateway/surface.js';
import { answerAccounting } from './answers/answer-accounting.js';
import { registerAnswerRoutes } from './answers/answer-routes.js';
import { AnswerService } from './answers/answer-service.js';
import { EvalCanaries } from './evaluation/eval-canaries.js';
import { registerEvalRoutes } from './evaluation/eval-routes.js';
import { EvalJobStore } from './evaluation/eval-job-store.js';
import { EvalJobs } from './evaluation/eval-jobs.js';
import { evaluationConditions } from './evaluation/evaluation-conditions.js';
import { registerRerankRoutes } from './evaluation/rerank-routes.js';
import { IndexRunAccounting } from './indexing/index-run-accounting.js';
import { registerIndexRoutes } from './indexing/index-routes.js';
import { IndexRunStore } from './indexing/index-run-store.js';
import { IndexRuns } from './indexing/index-runs.js';
import { registerKeywordRoutes } from './keywords/keyword-routes.js';
import { KeywordStore } from './keywords/keyword-store.js';
import { repositoryTexts } from './keywords/repository-texts.js';
import { codeSearchPort } from './repositories/code-search-port.js';
import { Repositories } from './repositories/repositories.js';
import { GitSources } from './repositories/git-sources.js';
import { GitRepositoryStore } from './repositories/git-repository-store.js';
import { indexRevision } from './repositories/revision-indexing.js';
import { registerGitRepositoryRoutes } from './repositories/git-repository-routes.js';
import { RecurringTask } from '../../platform/runtime/recurring-task.js';
import { outboundAllowHosts } from '../../../core/kernel/egress.js';
import { CodeSearch } from './retrieval/code-search.js';
import { warnWhenBackendCannotIndex } from './retrieval/retrieval-backend.js';
import { registerSearchRoutes } from './retrieval/search-routes.js';
import { CodeIndexes } from './code-index/code-indexes.js';
import { QuerySearch } from './query/query-search.js';
import { registerNavigationRoutes } from './navigation/navigation-routes.js';
import { secretValuesOf } from '../../platform/config/secret-values.js';
import { registerTraceRoutes } from './traces/trace-routes.js';
import { registerEditorRoutes } from './editor/editor-routes.js';
import { TraceStore } from './traces/trace-store.js';
import { SEARCH_HTTP_ERRORS } from './http/search-http-errors.js';
import { SEARCH_MIGRATIONS } from './search-migrations.js';
import { SEARCH_SETTINGS } from './search-settings.js';
import type { SearchTables } from './search-tables.js';

/** Code search: repositories, indexing runs, retrieval, keywords, traces, answers and evaluation. */
export const searchSurface = defineSurface<SearchTables>()({
  name: 'search',
  errors: SEARCH_HTTP_ERRORS,
  settings: SEARCH_SETTINGS,
  migrations: SEARCH_MIGRATIONS,
  async install(platform) {
    const { api, kernel, audit, logger, dataDir, ports, config, database } = platform;
    // Git repositories resolve through `repositories`, which reads them back: a late-bound reference.
    let gitSources: GitSources | undefined;
    const gitRepositories = () =>
      (gitSources?.list() ?? []).map((e) => ({
        name: e.name,
        dir: gitSources!.defaultTree(e.name),
        git: { defaultBranch: e.state.default_branch, trees: Object.fromEntries(e.state.revisions.map((r) => [r.name, gitSources!.treeDir(e.name, r.name)])) },
      }));
    const repositories = new Repositories(config, platform.root, platform.cwd, gitRepositories);
    const configured = repositories.all().map((r) => r.name);
    // A REPOS without the default repository answers 404 to every request naming none: say so now.
    if (!configured.includes(config.get('REPO'))) logger.warn({ repo: config.get('REPO'), configured }, 'REPO names no repository of REPOS: requests that name no repository will answer 404; set REPO to one of REPOS');
    const runStore = new IndexRunStore(database.db, database.dialect);
    await runStore.recoverAtStart();
    // Index runs and answers record their model calls in the platform's run accounting.
    const accounting = new IndexRunAccounting({ accounting: platform.runAccounting, runs: runStore, config });
    const runs = new IndexRuns({ store: runStore, repositories, kernel, config, logger, dataDir, packageRoot: platform.root, configStorePath: platform.configStorePath, pluginEnv: platform.pluginEnv, accounting });
    const keywords = new KeywordStore({
      dataDir,
      readSettings: () => ({
        maxPerRepo: config.get('KEYWORDS_MAX_PER_REPO'),
        minFreq: config.get('KEYWORDS_MIN_FREQ'),
        boost: config.get('KEYWORDS_BOOST'),
        refreshHours: config.get('KEYWORDS_REFRESH_HOURS'),
      }),
      sourceFiles: (repo) => repositoryTexts(repositories.resolve(repo).dir, config.get('INDEX_MAX_FILE_BYTES')),
      onError: (repo, err) => logger.warn({ repo, err: (err as Error).message }, 'keyword refresh failed; the previous keywords stay in use'),
    });
    const traces = new TraceStore({ dataDir, retention: () => config.get('TRACE_RETENTION'), secretValues: () => secretValuesOf(config, kernel) });
    const search = new CodeSearch({ kernel, config, repositories, logger, keywords, outbound: platform.outbound });
    const isDeleted = (corpus: string) => platform.runAccounting.store.isDeleted(corpus);
    gitSources = new GitSources({
      dataDir,
      store: new GitRepositoryStore(database.db, platform.secrets),
      timeoutMs: () => config.get('GIT_TIMEOUT_SECONDS') * 1000,
      allowHosts: () => outboundAllowHosts(config.get('OUTBOUND_ALLOW_HOSTS')),
      env: platform.pluginEnv,
      index: (repo, revision) => indexRevision(runs, runStore, repo, revision, config.get('GIT_TIMEOUT_SECONDS') * 1000),
      warn: (message, details) => logger.warn(details, message),
    });
    await gitSources.load();
    const sources = gitSources;
    // The schedule's fetch runs on one instance of a cluster at a time; the others follow the commits it records.
    const scheduledFetch = platform.leases.exclusive('search.git-fetch', () => sources.syncAll());
    const gitFetches = new RecurringTask({
      cadence: { pauseMs: () => (config.get('GIT_FETCH_MINUTES') || 60) * 60_000 },
      task: async () => {
        if (config.get('GIT_FETCH_MINUTES') > 0) await scheduledFetch();
      },
      onError: (err) => logger.warn({ err: (err as Error).message }, 'scheduled git fetch failed'),
    });
    // Every instance brings its mirrors to the shared list: added, fetched or removed elsewhere.
    const gitSync = new RecurringTask({
      cadence: { pauseMs: () => config.get('GIT_SYNC_SECONDS') * 1000 },
      task: () => sources.reconcile(),
      onError: (err) => logger.warn({ err: (err as Error).message }, 'reading the shared git repository list failed'),
    });
    // A changed pause applies now, not after the pause under way (up to an hour at the default).
    config.onChange((keys) => {
      if (keys.includes('GIT_FETCH_MINUTES')) gitFetches.reschedule();
      if (keys.includes('GIT_SYNC_SECONDS')) gitSync.reschedule();
    });
    platform.onStart(() => {
      gitFetches.start();
      gitSync.start();
      gitSync.wake();
    });
    platform.onStop('git fetches', () => gitFetches.stop());
    platform.onStop('git repository sync', () => gitSync.stop());
    registerGitRepositoryRoutes(api, { sources, repositories, audit });
    const codeIndexes = new CodeIndexes(dataDir, (repo) => sources.get(repo)?.state.default_branch ?? undefined);
    platform.onStop('code indexes', async () => codeIndexes.close());
    // Exact searches read candidates for at most 3 s; the results so far answer, marked partial.
    const querySearch = new QuerySearch({ repositories, search, codeIndexes, exactBudgetMs: () => 3000 });
    registerSearchRoutes(api, { search, traces, repositories, isDeleted, querySearch });
    registerNavigationRoutes(api, { repositories, codeIndexes, maxFileBytes: () => config.get('INDEX_MAX_FILE_BYTES') });
    const answers = new AnswerService({
      config, search, repositories, traces, logger,
      accounting: answerAccounting(platform.runAccounting),
      isDeleted,
      outbound: platform.outbound,
      // The latest run and its state: a new run (or one finishing) makes every cached answer of the repository stale.
      indexGeneration: async (repo) => {
        const run = await runStore.latest(repo);
        return run ? `${run.id}:${run.state}:${run.finished_at ?? ''}` : 'never-indexed';
      },
    });
    registerAnswerRoutes(api, { answers });
    registerKeywordRoutes(api, { keywords, repositories, audit });
    registerTraceRoutes(api, { traces, repositories });
    registerEditorRoutes(api, { config, legacyEditorSettingsFile: path.resolve(platform.cwd, 'out/editor/settings.json') });
    const canaries = new EvalCanaries(database.db);
    const prepare = async (repo: string) => {
      await keywords.get(repo);
    };
    const searchResults = async (q: string, repo: string, topK: number) => (await search.search(q, repo, topK)).results;
    const evalStore = new EvalJobStore(database.db, database.dialect);
    await evalStore.recoverAtStart();
    const evalJobs = new EvalJobs({ store: evalStore, search: searchResults, prepare, traces, canaries, logger, maxRunning: () => config.get('EVAL_MAX_RUNNING') });
    registerEvalRoutes(api, { jobs: evalJobs, store: evalStore, repositories, config });
    registerIndexRoutes(api, { runs, store: runStore, repositories, config, audit, isDeleted });
    registerRerankRoutes(api, { judge: platform.judges, repositories, traces, prepare, search: searchResults });
    ports.provide('codeSearch', codeSearchPort({ repositories, runs: runStore, kernel, config }));
    ports.addAlertConditions(evaluationConditions({ canaries, config }));
    const stopBackendWarning = warnWhenBackendCannotIndex(kernel, config, logger);
    platform.onStop('retrieval backend warning', async () => stopBackendWarning());
    platform.onStop('index runs', () => runs.stop());
    platform.onStop('evaluation runs', () => evalJobs.stop());
    platform.onStop('keyword builds', () => keywords.drain());
    return { codeIndexes, querySearch, repositories, runs, runStore, search, keywords, traces, answers, canaries, evalJobs };
  },
});

export type SearchSurface = Awaited<ReturnType<typeof searchSurface.install>>;
