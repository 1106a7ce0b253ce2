import 'reflect-metadata';
import path from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { PluginConfigStore } from '../../../core/config/plugin-config-store.js';
import { ensurePrivateDirSync } from '../../../core/config/private-files.js';
import { Kernel, parseIsolationSetting } from '../../../core/kernel/kernel.js';
import { OutboundGuard, outboundAllowHosts } from '../../../core/kernel/egress.js';
import type { WithStorage } from '../../../core/kernel/plugin-store.js';
import { installAuditSinks } from '../audit/audit-sinks.js';
import { AuditLog } from '../audit/audit-log.js';
import type { DatabaseAuditSink } from '../audit/db-sink.js';
import { createAuth, type Auth } from '../auth/auth.js';
import { mergeKeyLimits } from '../auth/key-limits.js';
import { sweepTempFiles } from '../cleanup/temp-sweep.js';
import { ConfigRegistry } from '../config/registry.js';
import { ConfigModel } from '../config/config-model.js';
import { PLATFORM_SETTINGS } from '../config/model/index.js';
import { ClusterConfig, configDocument, pluginSettingsDocument } from '../config/cluster-config.js';
import { ClusterLeases } from '../db/cluster-leases.js';
import { openDatabase, pingDatabase, type OpenedDatabase } from '../db/database.js';
import { Readiness } from '../health/readiness.js';
import { HttpApi } from '../http/api.js';
import { RunAccountStore } from '../llm/accounting/run-account-store.js';
import { RunAccounting } from '../llm/accounting/run-accounting.js';
import { JudgeService } from '../judges/judge-service.js';
import { createLogger } from '../logging/logger.js';
import { hostDeclarativeRuntimes } from '../plugins/declarative-runtimes.js';
import { pluginEnvironment } from '../plugins/plugin-environment.js';
import { RegistryCatalogue } from '../plugins/registry-catalogue.js';
import { PluginVersions } from '../plugins/artifacts/plugin-versions.js';
import { pluginPackagesDocument } from '../plugins/artifacts/packages-document.js';
import { SecretSeal } from '../secrets/secret-seal.js';
import { Ports } from '../ports/ports.js';
import { pluginCrashedCondition } from '../plugins/plugin-crash-condition.js';
import { hostVersion, packageRoot } from '../runtime/paths.js';
import type { SurfaceVocabulary } from './surface.js';
import type { RequestListener } from 'node:http';

export interface GatewayOptions {
  env?: NodeJS.ProcessEnv;
  /** Relative paths (DATA_DIR, ENV_FILE, ...) resolve against it. Default: process.cwd(). */
  cwd?: string;
  logDestination?: DestinationStream;
  /** Hot reload through file watching (default on). */
  watch?: boolean;
  /** The configuration, when the caller read it already (npm start reads it to bind the port first). */
  config?: ConfigRegistry;
  /**
   * Called with the gateway once its surfaces are installed, before the plugins load: npm start
   * opens its app here, and until they are loaded routes answer 503 `plugins_loading`.
   */
  beforePlugins?: (gateway: { app: RequestListener }) => void;
}

/**
 * What every surface is installed on: configuration, the kernel, the route DSL, readiness,
 * the database, audit, auth, and the ports where surfaces meet. A surface registers its
 * background work with `onStart` and its shutdown steps with `onStop`.
 */
export interface Platform {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** The package root (built-in manifests, registry/, dist/). */
  readonly root: string;
  readonly version: string;
  readonly config: ConfigRegistry;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly dataDir: string;
  /** Upload temp files (DATA_DIR/tmp); swept of an earlier process's leftovers at start. */
  readonly tmpDir: string;
  readonly configStorePath: string;
  readonly manifestsDir: string;
  readonly kernel: Kernel;
  /** The environment plugins see (a few host keys bridged in). */
  readonly pluginEnv: NodeJS.ProcessEnv;
  /** The one guard of outbound URLs set at run time (OUTBOUND_ALLOW_HOSTS). */
  readonly outbound: OutboundGuard;
  readonly api: HttpApi;
  readonly readiness: Readiness;
  readonly database: OpenedDatabase;
  /** Leases of once-per-cluster work: wrap such a task in `leases.exclusive(name, task)`. */
  readonly leases: ClusterLeases;
  /** The records, census and spend-ledger reconciliation of runs that call the LLM gateway; surfaces declare their kinds of run. */
  readonly runAccounting: RunAccounting;
  /** Typed judgment through the judge plugin of system_one.provider, for every surface. */
  readonly judges: JudgeService;
  /** The cluster's shared configuration (PostgreSQL only). */
  readonly clusterConfig: ClusterConfig | undefined;
  readonly audit: AuditLog;
  /** Seals the secrets stores keep in the database (SECRETS_KEY); without a key, values pass as they are. */
  readonly secrets: SecretSeal;
  readonly auditSink: DatabaseAuditSink;
  readonly auth: Auth;
  readonly catalogue: RegistryCatalogue;
  /** Installed plugin packages: versions, pin, rollback (shared by a cluster's instances). */
  readonly pluginVersions: PluginVersions;
  readonly ports: Ports;
  /** Runs once the kernel's first scan has loaded the plugins, before any route answers: routes the manifests declare are added here. */
  onPluginsLoaded(step: () => void): void;
  /** Runs once every surface is installed, the kernel has started and the server listens. */
  onStart(step: () => void): void;
  /** Runs at shutdown, after the server stopped taking requests, before the kernel stops. */
  onStop(name: string, step: () => Promise<void> | void): void;
}

export interface PlatformLifecycle {
  pluginsLoaded: Array<() => void>;
  /** `beforePlugins` with the gateway, the kernel's first scan, the routes the manifests declare; from then on every route serves. */
  loadPlugins(gateway: { app: RequestListener }): Promise<void>;
  starts: Array<() => void>;
  stops: Array<[string, () => Promise<void> | void]>;
}

/** The seal of stored secrets; a key given but refused (too short, in a file) stops the start rather than storing secrets plain. */
function secretSealOf(config: ConfigRegistry): SecretSeal {
  for (const name of ['SECRETS_KEY', 'SECRETS_KEY_PREVIOUS'] as const) {
    const problem = config.problems().find((p) => p.startsWith(`${name}: `));
    if (problem && config.get(name) === undefined) throw new Error(`${problem.replace('; ignored)', ')')}: not starting rather than storing secrets unsealed`);
  }
  return new SecretSeal(config.get('SECRETS_KEY'), config.get('SECRETS_KEY_PREVIOUS'));
}

/** The configuration model of a gateway: the platform's keys and those of each surface. */
export function configModelOf(surfaces: readonly Pick<SurfaceVocabulary, 'settings'>[]): ConfigModel {
  return new ConfigModel([PLATFORM_SETTINGS, ...surfaces.flatMap((s) => (s.settings ? [s.settings] : []))]);
}

/**
 * Builds the platform: everything but the surfaces' code, in the order each part needs the
 * others, with the surfaces' vocabulary merged in (their settings, error codes and migrations).
 */
export async function buildPlatform(options: GatewayOptions, surfaces: readonly SurfaceVocabulary[] = []): Promise<{ platform: Platform; lifecycle: PlatformLifecycle }> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const root = packageRoot();
  const version = hostVersion(root);
  const config = options.config ?? ConfigRegistry.fromEnvironment(configModelOf(surfaces), env, cwd);
  for (const surface of surfaces) if (surface.settings && !config.model.includes(surface.settings)) throw new Error(`the configuration was read without the settings of the ${surface.name} surface`);
  const logger = createLogger(config.get('LOG_LEVEL'), options.logDestination, config.get('LOG_FORMAT'));
  for (const problem of config.problems()) logger.warn({ problem }, 'configuration value ignored');
  const dataDir = path.resolve(cwd, config.get('DATA_DIR'));
  const secrets = secretSealOf(config);
  // Jobs, documents and plugin secrets live here: 0700 when the gateway creates it.
  ensurePrivateDirSync(dataDir);
  const metrics = new Registry();
  collectDefaultMetrics({ register: metrics, prefix: 'switchboard_' });
  const configStorePath = path.resolve(cwd, config.get('SERVICE_CONFIG_PATH') ?? path.join(dataDir, 'plugins.config.json'));
  const configStore = new PluginConfigStore(configStorePath);
  // Dropped and registry-installed manifests are state: DATA_DIR/manifests unless MANIFESTS_DIR
  // says otherwise. The package's manifests/ (the built-ins) is never written.
  const manifestsDir = path.resolve(cwd, config.get('MANIFESTS_DIR') ?? path.join(dataDir, 'manifests'));
  ensurePrivateDirSync(manifestsDir);
  const pluginsPath = config.get('PLUGINS_PATH').split(path.delimiter).filter(Boolean).map((p) => path.resolve(cwd, p));
  const pluginEnv = pluginEnvironment(env, config);
  // One guard for every URL set at run time: plugin egress, the LLM gateway, alert receivers.
  const outbound = new OutboundGuard(() => outboundAllowHosts(config.get('OUTBOUND_ALLOW_HOSTS')));
  const audit = new AuditLog({ enabled: () => config.get('AUDIT_LOG_ENABLED'), file: () => config.get('AUDIT_LOG_FILE'), logger });
  const kernel = new Kernel({
    hostVersion: version,
    searchPaths: [...new Set([path.join(root, 'manifests'), manifestsDir, ...pluginsPath])],
    roots: { packageRoot: root, buildRoot: path.join(root, 'dist') },
    configStore,
    env: pluginEnv.env,
    dataDir,
    // Plugins' shared state (ctx.storage) goes where the artifacts go: every instance sees it.
    pluginStorage: () => config.get('STORAGE_BACKEND'),
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
    declarative: hostDeclarativeRuntimes({ allowHttpLoopback: () => config.get('ALERT_ALLOW_HTTP_LOOPBACK') }),
    onEgressDenied: (pluginId, url) => audit.record('egress_denied', { plugin: pluginId, host: url.host }),
    outbound,
    pathsAllow: () => config.get('PLUGIN_PATHS_ALLOW').split(path.delimiter).filter((p) => path.isAbsolute(p)),
    runtimeVariable: pluginEnv.runtimeVariable,
    isolation: {
      modes: () => parseIsolationSetting(config.get('PLUGIN_ISOLATION')),
      limits: () => ({ memoryMb: config.get('PLUGIN_MEMORY_MB'), callMs: config.get('PLUGIN_CALL_TIMEOUT_MS'), unresponsiveMs: config.get('PLUGIN_UNRESPONSIVE_MS'), maxConcurrentCalls: config.get('PLUGIN_MAX_CONCURRENT_CALLS') }),
    },
  });
  pluginEnv.onChange(() => void kernel.rescan());
  const api = new HttpApi({ jsonMaxDepth: () => config.get('JSON_MAX_DEPTH') });
  for (const surface of surfaces) if (surface.errors) api.errors.add(surface.errors);
  const readiness = new Readiness();
  readiness.add('config', () => {
    const problems = [...config.problems(), ...configStore.problems()];
    return problems.length ? { ok: false, detail: problems.join('; ') } : { ok: true };
  });
  const database = await openDatabase({
    url: config.get('DATABASE_URL'),
    dataDir,
    migrations: surfaces.flatMap((s) => (s.migrations ? [s.migrations] : [])),
    onPoolError: (err) => logger.warn({ err: err.message, code: (err as NodeJS.ErrnoException).code }, 'database connection lost (the pool reconnects on the next query)'),
  });
  if (database.schemaAhead.length) logger.warn({ migrations: database.schemaAhead }, 'the database was migrated by a newer version: running on its schema without migrating (an upgrade under way?)');
  // With PostgreSQL the instances share the configuration, the plugin settings and the plugin
  // packages: the cluster's copies apply before anything reads a setting. Plugin settings changed
  // later rescan the kernel once it runs (before that, its first scan reads them); packages' bytes
  // go to the storage backend, and each instance unpacks the current versions once its kernel runs.
  let kernelRunning = false;
  const clustered = database.dialect === 'postgres';
  const packageStorage: WithStorage = (fn) => kernel.withProvider('storage', config.get('STORAGE_BACKEND'), fn);
  const pluginVersions = new PluginVersions({
    kernel, db: database.db, config, audit, logger, hostVersion: version, manifestsDir, packagesDir: path.join(dataDir, 'plugin-packages'),
    ...(clustered ? { shared: packageStorage } : {}),
  });
  const clusterConfig = clustered
    ? new ClusterConfig({
        config, db: database.db, logger, seal: secrets,
        documents: [configDocument(config, logger), pluginSettingsDocument(configStore, () => kernelRunning && void kernel.rescan()), pluginPackagesDocument(pluginVersions, () => kernelRunning)],
      })
    : undefined;
  await clusterConfig?.start();
  const leases = new ClusterLeases(database.db, database.dialect, () => config.get('CLUSTER_LEASE_SECONDS') * 1000, (err) => logger.warn({ err: (err as Error).message }, 'cluster lease renewal failed; the next renewal retries'));
  const runAccounts = new RunAccountStore(database.db);
  // In-process runs (schema proposals, answers) of a stopped SQLite gateway were its own; with
  // PostgreSQL another instance may own them, and owned runs (index runs) follow their owner's recovery.
  if (database.dialect === 'sqlite') await runAccounts.interruptRunning();
  const runAccounting = new RunAccounting({ store: runAccounts, config, logger, outbound });
  const auditSink = installAuditSinks(audit, { config, db: database.db, logger });
  const auth = await createAuth(api, { config, db: database.db, pool: database.pool, audit, logger, keyLimits: mergeKeyLimits(surfaces.map((s) => s.keyLimits)) });
  readiness.add('database', async () => {
    await pingDatabase(database.db);
    return { ok: true, info: { dialect: database.dialect } };
  });
  const tmpDir = path.join(dataDir, 'tmp');
  // Upload temp files of requests a killed process left behind; none of this process exists yet.
  const swept = await sweepTempFiles(tmpDir);
  if (swept) logger.info({ files: swept, dir: tmpDir }, 'removed temp files left by an earlier process');
  api.phase.loading();
  const lifecycle: PlatformLifecycle = {
    pluginsLoaded: [],
    async loadPlugins(gateway) {
      options.beforePlugins?.(gateway);
      await kernel.start();
      for (const step of lifecycle.pluginsLoaded) step();
      api.phase.serving();
    },
    starts: [
      () => (kernelRunning = true),
      () => void (clustered && pluginVersions.follow().catch((err: Error) => logger.warn({ err: err.message }, "could not bring the plugin packages to the cluster's current versions; the next change retries"))),
    ],
    stops: [],
  };
  const platform: Platform = {
    env, cwd, root, version, config, logger, metrics, dataDir, tmpDir, configStorePath, manifestsDir, kernel,
    pluginEnv: pluginEnv.env, outbound, api, readiness, database, leases, runAccounting, judges: new JudgeService({ kernel, config, metrics }), clusterConfig, audit, secrets, auditSink, auth,
    catalogue: new RegistryCatalogue(path.join(root, 'registry')),
    pluginVersions,
    ports: new Ports(),
    onPluginsLoaded: (step) => lifecycle.pluginsLoaded.push(step),
    onStart: (step) => lifecycle.starts.push(step),
    onStop: (name, step) => lifecycle.stops.push([name, step]),
  };
  platform.ports.addAlertConditions(pluginCrashedCondition({ kernel }));
  return { platform, lifecycle };
}
