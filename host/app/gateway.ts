import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigRegistry } from '../../core/config/registry.js';
import { PluginConfigStore } from '../../core/config/plugin-config-store.js';
import { Kernel } from '../../core/kernel/kernel.js';
import { HttpApi } from '../http/api.js';
import { createExpressApp } from '../http/app.js';
import { answerClientError } from '../http/client-errors.js';
import { registerConfigRoutes } from '../http/routes/config-routes.js';
import { registerHealthRoutes } from '../http/routes/health-routes.js';
import { registerPluginRoutes } from '../http/routes/plugin-routes.js';
import { registerSearchRoutes } from '../http/routes/search-routes.js';
import { RegistryCatalogue } from '../plugins/registry-catalogue.js';
import { createLogger } from './logger.js';
import { hostVersion, packageRoot } from './paths.js';
import { Readiness } from './readiness.js';
import { openDatabase, pingDatabase, type OpenedDatabase } from '../db/database.js';
import { AuditLog } from '../audit/audit-log.js';
import { DocumentTokens } from '../fax/document-tokens.js';
import { FaxJobStore } from '../fax/job-store.js';
import { FaxService } from '../fax/fax-service.js';
import { FaxDispatcher } from '../fax/dispatcher.js';
import { FaxReconciler } from '../fax/reconciler.js';
import { registerFaxRoutes } from '../fax/fax-routes.js';
import { createHttpFaxPlugin } from '../plugins/http-fax/index.js';
import { registerRegistryRoutes } from '../http/routes/registry-routes.js';
import { ghostscriptVersion } from '../fax/documents/index.js';
import { applyPluginStatusEvents } from '../fax/plugin-status-events.js';
// -- auth, inbound, admin, cleanup (host/auth, host/inbound, host/admin, host/cleanup) --
import { createAuth, type Auth } from '../auth/auth.js';
import { installAuditSinks } from '../audit/audit-sinks.js';
import { registerAdmin } from '../admin/admin.js';
import { InboundStore } from '../inbound/inbound-store.js';
import { InboundService } from '../inbound/inbound-service.js';
import { registerInboundRoutes } from '../inbound/inbound-routes.js';
import { ArtifactCleanup } from '../cleanup/artifact-cleanup.js';
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
    readonly fax: { store: FaxJobStore; service: FaxService; dispatcher: FaxDispatcher; reconciler: FaxReconciler },
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
    const metrics = new Registry();
    collectDefaultMetrics({ register: metrics, prefix: 'switchboard_' });
    const storeFile = path.resolve(cwd, config.get('SERVICE_CONFIG_PATH') ?? path.join(dataDir, 'plugins.config.json'));
    const configStore = new PluginConfigStore(storeFile);
    const manifestsDir = path.resolve(cwd, config.get('MANIFESTS_DIR') ?? path.join(root, 'manifests'));
    const pluginsPath = config
      .get('PLUGINS_PATH')
      .split(path.delimiter)
      .filter(Boolean)
      .map((p) => path.resolve(cwd, p));
    const audit = new AuditLog({ enabled: () => config.get('AUDIT_LOG_ENABLED'), file: () => config.get('AUDIT_LOG_FILE'), logger });
    const kernel = new Kernel({
      hostVersion: version,
      // The package's manifests/ always holds the built-ins; MANIFESTS_DIR, when set elsewhere,
      // is where dropped and installed manifests go.
      searchPaths: [...new Set([path.join(root, 'manifests'), manifestsDir, ...pluginsPath])],
      roots: { packageRoot: root, buildRoot: path.join(root, 'dist') },
      configStore,
      env,
      dataDir,
      logger,
      metrics,
      timeouts: {
        startMs: config.get('PLUGIN_START_TIMEOUT_MS'),
        stopMs: config.get('PLUGIN_STOP_TIMEOUT_MS'),
        drainMs: config.get('PLUGIN_DRAIN_TIMEOUT_MS'),
      },
      watch: options.watch ?? true,
      declarative: { http: createHttpFaxPlugin },
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
    const service = new FaxService({ store, kernel, config, tokens, audit, logger, onSubmitted: () => dispatcher?.wake() });
    dispatcher = new FaxDispatcher({ store, kernel, service, config, audit, logger });
    const reconciler = new FaxReconciler({ store, kernel, config, audit, logger });
    applyPluginStatusEvents({ kernel, store, audit, logger });
    readiness.add('database', async () => {
      await pingDatabase(database.db);
      return { ok: true, info: { dialect: database.dialect } };
    });
    readiness.add('fax_backend', () => {
      const backend = config.get('FAX_BACKEND');
      if (config.get('FAX_DISABLED')) return { ok: true, detail: 'FAX_DISABLED: jobs are stored, not sent', info: { backend } };
      const problem = service.backendProblem();
      return problem ? { ok: false, detail: problem, info: { backend } } : { ok: true, info: { backend } };
    });
    readiness.add('storage', () => {
      const id = config.get('STORAGE_BACKEND');
      return kernel.isActive('storage', id) ? { ok: true, info: { backend: id } } : { ok: false, detail: `storage backend "${id}" is not active (state: ${kernel.stateOf(id)})` };
    });
    readiness.add('pdf_renderer', async () => {
      const version = await ghostscriptVersion();
      return version ? { ok: true, info: { ghostscript: version } } : { ok: false, detail: 'ghostscript (gs) not found: install the ghostscript package' };
    });
    registerHealthRoutes(api, { kernel, readiness, metrics });
    registerRegistryRoutes(api, { kernel, catalogue, manifestsDir, hostVersion: version, publicBaseUrl: () => service.publicBaseUrl() });
    const tmpDir = path.join(dataDir, 'tmp');
    // Upload temp files of requests a killed process left behind; none of this process exists yet.
    const swept = await sweepTempFiles(tmpDir);
    if (swept) logger.info({ files: swept, dir: tmpDir }, 'removed temp files left by an earlier process');
    registerFaxRoutes(api, { service, store, kernel, config, tokens, audit, reconciler, tmpDir });
    registerPluginRoutes(api, { kernel, catalogue, audit });
    registerSearchRoutes(api, { kernel, config });
    registerConfigRoutes(api, { registry: config, legacyEditorSettingsFile: path.resolve(cwd, 'out/editor/settings.json') });
    const inboundStore = new InboundStore(database.db);
    const inbound = new InboundService({ store: inboundStore, kernel, config, audit, logger });
    registerInboundRoutes(api, { service: inbound, store: inboundStore, kernel, config, tokens, audit, env });
    let gateway: Gateway | undefined;
    const admin = registerAdmin(api, {
      config, kernel, readiness, database, store, service, audit, auditSink, version,
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
    const app = createExpressApp(api, { logger, metrics, version });
    dispatcher.start();
    reconciler.start();
    if (config.get('ARTIFACT_TTL_DAYS') > 0 || config.get('INBOUND_RETENTION_DAYS') > 0) cleanup.start();
    gateway = new Gateway(config, kernel, api, readiness, metrics, logger, dataDir, app, database, { store, service, dispatcher, reconciler }, audit);
    gateway.security = { auth, closeStreams: admin.closeStreams, cleanup };
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
      ['cleanup', () => this.security?.cleanup.stop()],
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
