import { registerAdmin } from '../admin/admin.js';
import { registerConfigRoutes } from '../config/config-routes.js';
import { registerHealthRoutes } from '../health/health-routes.js';
import { publicBaseUrl } from '../http/public-url.js';
import { registerPluginRoutes } from '../plugins/plugin-routes.js';
import { registerRegistryRoutes } from '../plugins/registry-routes.js';
import { registerPackageRoutes } from '../plugins/artifacts/package-routes.js';
import type { Platform } from './platform.js';

/** What POST /admin/restart drains and ends (the gateway, once it exists). */
interface Restartable {
  close(): Promise<void>;
  exitProcess(code: number): void;
}

/** The platform's own routes: health, plugins and the registry, configuration, admin. */
export function registerPlatformRoutes(platform: Platform, gateway: () => Restartable | undefined): { closeStreams(): void } {
  const restart = async () => {
    try {
      await gateway()?.close();
      gateway()?.exitProcess(0);
    } catch (err) {
      platform.logger.error({ err: (err as Error).message }, 'restart drain failed');
      gateway()?.exitProcess(1);
    }
  };
  const { api, kernel, config, audit, catalogue } = platform;
  registerHealthRoutes(api, { kernel, readiness: platform.readiness, metrics: platform.metrics });
  registerRegistryRoutes(api, { kernel, catalogue, manifestsDir: platform.manifestsDir, audit, hostVersion: platform.version, publicBaseUrl: () => publicBaseUrl(config) });
  registerPluginRoutes(api, { kernel, catalogue, audit, configStorePath: platform.configStorePath, hostVersion: platform.version });
  registerPackageRoutes(api, { kernel, versions: platform.pluginVersions, config, outbound: platform.outbound });
  registerConfigRoutes(api, { registry: config, audit });
  return registerAdmin(api, {
    config, kernel, audit, restart,
    readiness: platform.readiness,
    database: platform.database,
    ports: platform.ports,
    auditSink: platform.auditSink,
    version: platform.version,
    authRequired: platform.auth.authRequired,
  });
}
