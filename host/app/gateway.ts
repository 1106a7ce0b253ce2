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
import { registerConfigRoutes } from '../http/routes/config-routes.js';
import { registerHealthRoutes } from '../http/routes/health-routes.js';
import { registerPluginRoutes } from '../http/routes/plugin-routes.js';
import { registerSearchRoutes } from '../http/routes/search-routes.js';
import { RegistryCatalogue } from '../plugins/registry-catalogue.js';
import { createLogger } from './logger.js';
import { hostVersion, packageRoot } from './paths.js';
import { Readiness } from './readiness.js';
import { loopbackGuard } from './access.js';

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

  private constructor(
    readonly config: ConfigRegistry,
    readonly kernel: Kernel,
    readonly api: HttpApi,
    readonly readiness: Readiness,
    readonly metrics: Registry,
    readonly logger: Logger,
    readonly dataDir: string,
    readonly app: ReturnType<typeof createExpressApp>,
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
    const kernel = new Kernel({
      hostVersion: version,
      searchPaths: [manifestsDir, ...pluginsPath],
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
    });
    const api = new HttpApi();
    api.setGuard(loopbackGuard);
    const readiness = new Readiness();
    readiness.add('config', () => {
      const problems = [...config.problems(), ...configStore.problems()];
      return problems.length ? { ok: false, detail: problems.join('; ') } : { ok: true };
    });
    const catalogue = new RegistryCatalogue(path.join(root, 'registry'));
    registerHealthRoutes(api, { kernel, readiness, metrics });
    registerPluginRoutes(api, { kernel, catalogue });
    registerSearchRoutes(api, { kernel, config });
    registerConfigRoutes(api, { registry: config, legacyEditorSettingsFile: path.resolve(cwd, 'out/editor/settings.json') });
    await kernel.start();
    const app = createExpressApp(api, { logger, metrics, version });
    return new Gateway(config, kernel, api, readiness, metrics, logger, dataDir, app);
  }

  async listen(port: number = this.config.get('PORT'), host: string = this.config.get('HOST')): Promise<AddressInfo> {
    this.server = createServer(this.app);
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => resolve());
    });
    const address = this.server.address() as AddressInfo;
    this.logger.info({ port: address.port, host: address.address }, 'switchboard listening');
    return address;
  }

  /** Stops taking requests, lets in-flight ones finish, then stops every plugin. */
  async close(): Promise<void> {
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    await this.kernel.stop();
  }
}
