import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigRegistry } from '../config/registry.js';
import { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { Kernel } from '../../../core/kernel/kernel.js';
import { HttpApi } from '../http/api.js';
import { createExpressApp } from '../http/app.js';
import { answerClientError } from '../http/client-errors.js';
import { registerConfigRoutes } from '../config/config-routes.js';
import { registerHealthRoutes } from '../health/health-routes.js';
import { registerPluginRoutes } from '../plugins/plugin-routes.js';
import { RegistryCatalogue } from '../plugins/registry-catalogue.js';
import { createLogger } from '../logging/logger.js';
import { ensurePrivateDirSync } from '../../../core/config/private-files.js';
import { hostVersion, packageRoot } from '../runtime/paths.js';
import { Readiness } from '../health/readiness.js';
import { openDatabase, pingDatabase, type OpenedDatabase } from '../db/database.js';
import { AuditLog } from '../audit/audit-log.js';
import { DocumentTokens } from '../../surfaces/fax/jobs/document-tokens.js';
import { FaxJobStore } from '../../surfaces/fax/jobs/job-store.js';
import { FaxService } from '../../surfaces/fax/jobs/fax-service.js';
import { FaxDispatcher } from '../../surfaces/fax/dispatch/dispatcher.js';
import { FaxReconciler } from '../../surfaces/fax/dispatch/reconciler.js';
import { registerFaxRoutes } from '../../surfaces/fax/jobs/fax-routes.js';
import { hostDeclarativeRuntimes } from '../plugins/declarative-runtimes.js';
import { registerRegistryRoutes } from '../plugins/registry-routes.js';
import { ghostscriptVersion } from '../../surfaces/fax/documents/index.js';
import { applyPluginStatusEvents } from '../../surfaces/fax/dispatch/plugin-status-events.js';
import { faxBackendCheck } from '../../surfaces/fax/dispatch/backend-readiness.js';
// -- auth, inbound, admin, cleanup (host/auth, host/inbound, host/admin, host/cleanup) --
import { createAuth, type Auth } from '../auth/auth.js';
import { installAuditSinks } from '../audit/audit-sinks.js';
import { registerAdmin } from '../admin/admin.js';
import { InboundStore } from '../../surfaces/fax/inbound/inbound-store.js';
import { InboundService } from '../../surfaces/fax/inbound/inbound-service.js';
import { registerInboundRoutes } from '../../surfaces/fax/inbound/inbound-routes.js';
import { InboundReceiver } from '../../surfaces/fax/inbound/inbound-receiver.js';
import { CallbackReceiver } from '../../surfaces/fax/webhooks/callback-receiver.js';
import { registerWebhookAliasRoutes, registerWebhookRoutes } from '../../surfaces/fax/webhooks/webhook-routes.js';
import { JobDocuments } from '../../surfaces/fax/jobs/job-documents.js';
import { JobUpdates } from '../../surfaces/fax/jobs/job-updates.js';
import { publicBaseUrl } from '../http/public-url.js';
import { ArtifactCleanup } from '../../surfaces/fax/cleanup/artifact-cleanup.js';
import { registerContainerRoutes } from '../../surfaces/workbench/containers/container-routes.js';
import { registerDevStatusRoute } from '../../surfaces/workbench/status/dev-status.js';
import { JudgeService } from '../../surfaces/workbench/judges/judge-service.js';
import { LabRuns } from '../../surfaces/workbench/lab/lab-runs.js';
import { registerLabRoutes } from '../../surfaces/workbench/lab/lab-routes.js';
import { registerWorkbenchReadyRoute } from '../../surfaces/workbench/status/ready-route.js';
import { pluginEnvironment } from '../../surfaces/workbench/judges/plugin-environment.js';
import { AlertOutbox } from '../../surfaces/workbench/alerts/alert-outbox.js';
import { AlertEngine } from '../../surfaces/workbench/alerts/alert-engine.js';
import { AlertDelivery, targetIds } from '../../surfaces/workbench/alerts/alert-delivery.js';
import { WebhookTransport } from '../../surfaces/workbench/alerts/webhook-transport.js';
import { faxConditions, providerLeftActiveCondition } from '../../surfaces/workbench/alerts/conditions/fax-conditions.js';
import { judgeConditions } from '../../surfaces/workbench/alerts/conditions/judge-conditions.js';
import { registerAlertRoutes } from '../../surfaces/workbench/alerts/alert-routes.js';
// -- code search (host/search) --
import { Repositories } from '../../surfaces/search/repositories/repositories.js';
import { IndexRunStore } from '../../surfaces/search/indexing/index-run-store.js';
import { IndexRuns } from '../../surfaces/search/indexing/index-runs.js';
import { CodeSearch } from '../../surfaces/search/retrieval/code-search.js';
import { registerSearchRoutes } from '../../surfaces/search/retrieval/search-routes.js';
import { AnswerService } from '../../surfaces/search/answers/answer-service.js';
import { registerAnswerRoutes } from '../../surfaces/search/answers/answer-routes.js';
import { registerIndexRoutes } from '../../surfaces/search/indexing/index-routes.js';
import { RunAccountStore } from '../../surfaces/workbench/accounting/run-account-store.js';
import { RunAccounting } from '../../surfaces/workbench/accounting/run-accounting.js';
import { SchemaProposals } from '../../surfaces/workbench/accounting/schema-proposal.js';
import { registerAccountingRoutes } from '../../surfaces/workbench/accounting/accounting-routes.js';
// -- keywords, traces, evaluation (host/keywords, host/traces, host/evaluation) --
import { KeywordStore } from '../../surfaces/search/keywords/keyword-store.js';
import { repositoryTexts } from '../../surfaces/search/keywords/repository-texts.js';
import { TraceStore } from '../../surfaces/search/traces/trace-store.js';
import { registerKeywordRoutes } from '../../surfaces/search/keywords/keyword-routes.js';
import { registerTraceRoutes } from '../../surfaces/search/traces/trace-routes.js';
import { registerEvalRoutes } from '../../surfaces/search/evaluation/eval-routes.js';
import { registerRerankRoutes } from '../../surfaces/search/evaluation/rerank-routes.js';
import { EvalCanaries } from '../../surfaces/search/evaluation/eval-canaries.js';
import { evaluationConditions } from '../../surfaces/workbench/alerts/conditions/evaluation-conditions.js';
import { accountingConditions } from '../../surfaces/workbench/alerts/conditions/accounting-conditions.js';
import { SECRET_FIELDS } from '../config/model/index.js';
import { sweepTempFiles } from '../cleanup/temp-sweep.js';

export interface GatewayOptions {
  env?: NodeJS.ProcessEnv;
  /** Relative paths (DATA_DIR, ENV_FILE, ...) resolve against it. Default: process.cwd(). */
  cwd?: string;
  logDestination?: DestinationStream;
  /** Hot reload through file watching (default on). */
  watch?: boolean;
}

/**
 * The gateway: one process wiring core (config, kernel) with the HTTP surfaces. Each part
 * registers its routes on the shared HttpApi and its checks on Readiness.
 */
export class Gateway {
  server?: Server;
  /** How POST /admin/restart ends the process after draining; tests replace it. */
  exitProcess: (code: number) => void = (code) => process.exit(code);
  private security?: { auth: Auth; closeStreams: () => void; cleanup: ArtifactCleanup };
  /** The alert engine (`tick()` evaluates now) and the outbox delivery. */
  alerts?: { engine: AlertEngine; delivery: AlertDelivery };
  /** Code search: repositories, indexing runs and the search service (host/search). */
  codeSearch!: { repositories: Repositories; runs: IndexRuns; runStore: IndexRunStore; search: CodeSearch; keywords: KeywordStore; traces: TraceStore; answers: AnswerService };
  private closing?: Promise<void>;

  private constructor(
    readonly config: ConfigRegistry,
    readonly kernel: Kernel,
    readonly api: HttpApi,
    readonly readiness: Readiness,
    readonly metrics: Registry,
    readonly logger: Logger,
    readonly dataDir: string,
    readonly app: ReturnType<typeof createExpressApp>,
    readonly database: OpenedDatabase,
    readonly fax: { store: FaxJobStore; service: FaxService; documents: JobDocuments; dispatcher: FaxDispatcher; reconciler: FaxReconciler },
    readonly audit: AuditLog,
  ) {}

  static async create(options: GatewayOptions = {}): Promise<Gateway> {
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const root = packageRoot();
    const version = hostVersion(root);
    const config = ConfigRegistry.fromEnvironment(env, cwd);
    const logger = createLogger(config.get('LOG_LEVEL'), options.logDestination);
    for (const problem of config.problems()) logger.warn({ problem }, 'configuration value ignored');
    const dataDir = path.resolve(cwd, config.get('DATA_DIR'));
    // Jobs, documents and plugin secrets live here: 0700 when the gateway creates it.
    ensurePrivateDirSync(dataDir);
    const metrics = new Registry();
    collectDefaultMetrics({ register: metrics, prefix: 'switchboard_' });
    const storeFile = path.resolve(cwd, config.get('SERVICE_CONFIG_PATH') ?? path.join(dataDir, 'plugins.config.json'));
    const configStore = new PluginConfigStore(storeFile);
    // Dropped and registry-installed manifests are state: DATA_DIR/manifests unless
    // MANIFESTS_DIR says otherwise. The package's manifests/ (the built-ins) is never written.
    const manifestsDir = path.resolve(cwd, config.get('MANIFESTS_DIR') ?? path.join(dataDir, 'manifests'));
    ensurePrivateDirSync(manifestsDir);
    const pluginsPath = config
      .get('PLUGINS_PATH')
      .split(path.delimiter)
      .filter(Boolean)
      .map((p) => path.resolve(cwd, p));
    const pluginEnv = pluginEnvironment(env, config);
    const audit = new AuditLog({ enabled: () => config.get('AUDIT_LOG_ENABLED'), file: () => config.get('AUDIT_LOG_FILE'), logger });
    const kernel = new Kernel({
      hostVersion: version,
      // The package's manifests/ always holds the built-ins; manifestsDir is where dropped and
      // installed manifests go.
      searchPaths: [...new Set([path.join(root, 'manifests'), manifestsDir, ...pluginsPath])],
      roots: { packageRoot: root, buildRoot: path.join(root, 'dist') },
      configStore,
      env: pluginEnv.env,
      dataDir,
      logger,
      metrics,
      timeouts: {
        startMs: config.get('PLUGIN_START_TIMEOUT_MS'),
        stopMs: config.get('PLUGIN_STOP_TIMEOUT_MS'),
        drainMs: config.get('PLUGIN_DRAIN_TIMEOUT_MS'),
        healthMs: config.get('PLUGIN_HEALTH_TIMEOUT_MS'),
      },
      backoff: { initialMs: config.get('PLUGIN_RETRY_INITIAL_MS'), maxMs: config.get('PLUGIN_RETRY_MAX_MS') },
      watch: options.watch ?? true,
      declarative: hostDeclarativeRuntimes(),
      onEgressDenied: (pluginId, url) => audit.record('egress_denied', { plugin: pluginId, host: url.host }),
    });
    const api = new HttpApi();
    const readiness = new Readiness();
    readiness.add('config', () => {
      const problems = [...config.problems(), ...configStore.problems()];
      return problems.length ? { ok: false, detail: problems.join('; ') } : { ok: true };
    });
    const catalogue = new RegistryCatalogue(path.join(root, 'registry'));
    const database = await openDatabase({ url: config.get('DATABASE_URL'), dataDir });
    const tokens = await DocumentTokens.load(database.db);
    const auditSink = installAuditSinks(audit, { config, db: database.db, logger });
    const auth = await createAuth(api, { config, db: database.db, pool: database.pool, audit, logger });
    const store = new FaxJobStore(database.db, database.dialect);
    let dispatcher: FaxDispatcher | undefined;
    const documents = new JobDocuments({ kernel, config, tokens });
    const updates = new JobUpdates({ store, audit });
    const service = new FaxService({ store, kernel, config, documents, audit, logger, onSubmitted: () => dispatcher?.wake() });
    dispatcher = new FaxDispatcher({ store, kernel, documents, updates, config, audit, logger });
    const reconciler = new FaxReconciler({ store, kernel, config, updates, logger });
    applyPluginStatusEvents({ kernel, store, updates, logger });
    readiness.add('database', async () => {
      await pingDatabase(database.db);
      return { ok: true, info: { dialect: database.dialect } };
    });
    readiness.add('fax_backend', () => faxBackendCheck({ config, kernel, service }));
    readiness.add('storage', () => {
      const id = config.get('STORAGE_BACKEND');
      return kernel.isActive('storage', id) ? { ok: true, info: { backend: id } } : { ok: false, detail: `storage backend "${id}" is not active (state: ${kernel.stateOf(id)})` };
    });
    readiness.add('pdf_renderer', async () => {
      const version = await ghostscriptVersion();
      return version ? { ok: true, info: { ghostscript: version } } : { ok: false, detail: 'ghostscript (gs) not found: install the ghostscript package' };
    });
    registerHealthRoutes(api, { kernel, readiness, metrics });
    registerRegistryRoutes(api, { kernel, catalogue, manifestsDir, audit, hostVersion: version, publicBaseUrl: () => publicBaseUrl(config) });
    const tmpDir = path.join(dataDir, 'tmp');
    // Upload temp files of requests a killed process left behind; none of this process exists yet.
    const swept = await sweepTempFiles(tmpDir);
    if (swept) logger.info({ files: swept, dir: tmpDir }, 'removed temp files left by an earlier process');
    registerFaxRoutes(api, { service, documents, store, kernel, config, tokens, audit, reconciler, tmpDir });
    registerPluginRoutes(api, { kernel, catalogue, audit, configStorePath: storeFile });
    const repositories = new Repositories(config, root, cwd);
    const indexRunStore = new IndexRunStore(database.db, database.dialect);
    await indexRunStore.recoverAtStart();
    const runAccounts = new RunAccountStore(database.db);
    // In-process runs (schema proposals) of a stopped SQLite gateway were its own; with
    // PostgreSQL another instance may own them, and index runs follow index_runs' recovery.
    if (database.dialect === 'sqlite') await runAccounts.interruptRunning();
    const accounting = new RunAccounting({ store: runAccounts, indexRuns: indexRunStore, config, logger });
    const indexRuns = new IndexRuns({ store: indexRunStore, repositories, kernel, config, logger, dataDir, packageRoot: root, configStorePath: storeFile, pluginEnv: pluginEnv.env, accounting });
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
    const traces = new TraceStore({
      dataDir,
      retention: () => config.get('TRACE_RETENTION'),
      secretValues: () => secretValuesOf(config),
    });
    const codeSearch = new CodeSearch({ kernel, config, repositories, logger, keywords });
    registerSearchRoutes(api, { search: codeSearch, traces });
    const answers = new AnswerService({
      config, search: codeSearch, repositories, traces, logger,
      accounting: accounting.answerAccounting(),
      // The latest run and its state: a new run (or one finishing) makes every cached answer of the repository stale.
      indexGeneration: async (repo) => {
        const run = await indexRunStore.latest(repo);
        return run ? `${run.id}:${run.state}:${run.finished_at ?? ''}` : 'never-indexed';
      },
    });
    registerAnswerRoutes(api, { answers });
    registerKeywordRoutes(api, { keywords, repositories, audit });
    registerTraceRoutes(api, { traces, repositories });
    const canaries = new EvalCanaries(database.db);
    registerEvalRoutes(api, {
      canaries,
      repositories,
      traces,
      prepare: async (repo) => {
        await keywords.get(repo);
      },
      search: async (q, repo, topK) => (await codeSearch.search(q, repo, topK)).results,
    });
    registerIndexRoutes(api, { runs: indexRuns, store: indexRunStore, repositories, config, audit, accounts: runAccounts });
    registerAccountingRoutes(api, { accounting, proposals: new SchemaProposals({ accounting, config }), repositories, indexRuns: indexRunStore, kernel, config, audit });
    registerConfigRoutes(api, { registry: config, audit, legacyEditorSettingsFile: path.resolve(cwd, 'out/editor/settings.json') });
    registerContainerRoutes(api, { config, audit });
    registerDevStatusRoute(api, { config, packageRoot: root });
    const judge = new JudgeService({ kernel, config, metrics });
    registerLabRoutes(api, { runs: new LabRuns({ db: database.db, judge }), config });
    registerRerankRoutes(api, {
      judge,
      repositories,
      traces,
      prepare: async (repo) => {
        await keywords.get(repo);
      },
      search: async (q, repo, topK) => (await codeSearch.search(q, repo, topK)).results,
    });
    registerWorkbenchReadyRoute(api, { kernel, config, pingDatabase: () => pingDatabase(database.db) });
    pluginEnv.onChange(() => void kernel.rescan());
    const outbox = new AlertOutbox(database.db, database.dialect);
    const transport = new WebhookTransport(() => ({ timeoutMs: config.get('ALERT_WEBHOOK_TIMEOUT') * 1000, caFile: config.get('ALERT_WEBHOOK_CA_FILE') }));
    const alertDelivery = new AlertDelivery({ outbox, transport, config, kernel, logger, metrics });
    const alertEngine = new AlertEngine({
      db: database.db,
      outbox,
      config,
      logger,
      metrics,
      sources: [faxConditions({ db: database.db, config }), providerLeftActiveCondition({ kernel }), judgeConditions({ judge, kernel, config }), evaluationConditions({ canaries, config }), accountingConditions({ db: database.db, config })],
      targets: () => targetIds(config, kernel),
      onEnqueued: () => alertDelivery.wake(),
    });
    registerAlertRoutes(api, { engine: alertEngine, outbox, config, kernel, audit, wake: () => alertDelivery.wake() });
    const inboundStore = new InboundStore(database.db);
    const inbound = new InboundService({ store: inboundStore, kernel, config, audit, logger });
    registerInboundRoutes(api, { service: inbound, store: inboundStore, config, tokens, audit });
    const webhooks = {
      callbacks: new CallbackReceiver({ kernel, audit, store, updates }),
      inbound: new InboundReceiver({ kernel, audit, config, service: inbound }),
      publicBaseUrl: () => publicBaseUrl(config),
    };
    registerWebhookRoutes(api, webhooks);
    let gateway: Gateway | undefined;
    const admin = registerAdmin(api, {
      config, kernel, readiness, database, store, documents, audit, auditSink, version,
      authRequired: auth.authRequired,
      restart: async () => {
        try {
          await gateway?.close();
          gateway?.exitProcess(0);
        } catch (err) {
          logger.error({ err: (err as Error).message }, 'restart drain failed');
          gateway?.exitProcess(1);
        }
      },
    });
    const cleanup = new ArtifactCleanup({ db: database.db, kernel, config, audit, logger, tmpDir });
    await kernel.start();
    // Alias paths come from the manifests just loaded, so they are routed after the first scan.
    registerWebhookAliasRoutes(api, {
      ...webhooks,
      kernel,
      onSkipped: (aliasPath, pluginId) => logger.warn({ path: aliasPath, plugin: pluginId }, 'webhook alias path clashes with a route of the host; not routed'),
    });
    const app = createExpressApp(api, { logger, metrics, version });
    dispatcher.start();
    reconciler.start();
    alertDelivery.start();
    alertEngine.start();
    if (config.get('ARTIFACT_TTL_DAYS') > 0 || config.get('INBOUND_RETENTION_DAYS') > 0) cleanup.start();
    gateway = new Gateway(config, kernel, api, readiness, metrics, logger, dataDir, app, database, { store, service, documents, dispatcher, reconciler }, audit);
    gateway.security = { auth, closeStreams: admin.closeStreams, cleanup };
    gateway.alerts = { engine: alertEngine, delivery: alertDelivery };
    gateway.codeSearch = { repositories, runs: indexRuns, runStore: indexRunStore, search: codeSearch, keywords, traces, answers };
    return gateway;
  }

  /** Artifact cleanup (ARTIFACT_TTL_DAYS, INBOUND_RETENTION_DAYS): `runOnce()` runs a pass now. */
  get cleanup(): ArtifactCleanup {
    return this.security!.cleanup;
  }

  get auth(): Auth {
    return this.security!.auth;
  }

  async listen(port: number = this.config.get('PORT'), host: string = this.config.get('HOST')): Promise<AddressInfo> {
    this.server = createServer(this.app);
    this.server.on('clientError', answerClientError);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    this.logger.info({ port: address.port, host: address.address }, 'switchboard listening');
    return address;
  }

  /** Stops taking requests, lets in-flight ones finish, then stops every plugin. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.security?.closeStreams();
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    // Every step runs even when one before it fails; the audit log closes after the plugins
    // stopped (they may still record), the database last.
    const steps: Array<[string, () => Promise<void> | void]> = [
      ['dispatcher', () => this.fax.dispatcher.stop()],
      ['reconciler', () => this.fax.reconciler.stop()],
      ['alert engine', () => this.alerts?.engine.stop()],
      ['alert delivery', () => this.alerts?.delivery.stop()],
      ['cleanup', () => this.security?.cleanup.stop()],
      ['index runs', () => this.codeSearch?.runs.stop()],
      ['keyword builds', () => this.codeSearch?.keywords.drain()],
      ['auth', () => this.security?.auth.stop()],
      ['kernel', () => this.kernel.stop()],
      ['audit', () => this.audit.close()],
      ['database', () => this.database.close()],
    ];
    for (const [name, step] of steps) {
      try {
        await step();
      } catch (err) {
        this.logger.error({ step: name, err: (err as Error).message }, 'shutdown step failed');
      }
    }
  }
}

/** The configured secrets in clear, so a trace can mask them wherever they would appear. */
function secretValuesOf(config: ConfigRegistry): string[] {
  const values = config.effective().config as Record<string, unknown>;
  return [...SECRET_FIELDS].map((k) => values[k]).filter((v): v is string => typeof v === 'string' && v.length > 0);
}
