import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createExpressApp } from '../http/app.js';
import { rememberBoundPort } from '../http/public-url.js';
import { buildPlatform, type GatewayOptions, type Platform, type PlatformLifecycle } from './platform.js';
import { listenHttp, runStopSteps } from './http-server.js';
import { registerPlatformRoutes } from './platform-routes.js';
import { startUpBanner } from './start-up-banner.js';
import { installSurfaces, type Surface, type SurfaceHandles } from './surface.js';

/** The gateway: the platform with its surfaces installed, an HTTP server, and an orderly stop. */
export class Gateway<S = Record<string, unknown>> {
  server?: Server;
  /** How POST /admin/restart ends the process after draining; tests replace it. */
  exitProcess: (code: number) => void = (code) => process.exit(code);
  get config() { return this.platform.config; }
  get kernel() { return this.platform.kernel; }
  get api() { return this.platform.api; }
  get readiness() { return this.platform.readiness; }
  get metrics() { return this.platform.metrics; }
  get logger() { return this.platform.logger; }
  get dataDir() { return this.platform.dataDir; }
  get database() { return this.platform.database; }
  get audit() { return this.platform.audit; }
  get auth() { return this.platform.auth; }
  private closing?: Promise<void>;
  private working = false;

  private constructor(
    readonly platform: Platform,
    /** What each surface's install returned, by surface name. */
    readonly surfaces: S,
    private readonly lifecycle: PlatformLifecycle & { closeStreams(): void },
    readonly app = createExpressApp(platform.api, { logger: platform.logger, metrics: platform.metrics, version: platform.version, console: { root: platform.root, dir: platform.config.get('WEB_DIST_DIR') }, refusedBodyDiscardBytes: () => platform.config.get('REFUSED_BODY_DISCARD_MB') * 1024 * 1024 }),
  ) {}

  /** Builds the platform, installs each surface in order and loads the plugins; the surfaces' work starts with listen(). */
  static async create<T extends Record<string, Surface<unknown>>>(options: GatewayOptions, surfaces: T): Promise<Gateway<SurfaceHandles<T>>> {
    const { platform, lifecycle } = await buildPlatform(options, Object.values(surfaces));
    let gateway: Gateway<SurfaceHandles<T>> | undefined;
    const admin = registerPlatformRoutes(platform, () => gateway);
    const handles = await installSurfaces(platform, surfaces);
    return lifecycle.loadPlugins((gateway = new Gateway(platform, handles, { ...lifecycle, closeStreams: admin.closeStreams }))).then(() => gateway!);
  }

  /** `bound`: a server already listening whose requests reach `app` (npm start binds first: http/early-server.ts). */
  async listen(port: number = this.config.get('PORT'), host: string = this.config.get('HOST'), bound?: { server: Server; address: AddressInfo }): Promise<AddressInfo> {
    const { server, address } = bound ?? (await listenHttp(this.app, port, host));
    this.server = server;
    rememberBoundPort(this.config, address.port);
    this.logger.info(startUpBanner(address, { dataDir: this.dataDir, database: this.database, plugins: this.kernel.list(), keysRequired: this.auth.authRequired() }), 'switchboard listening');
    this.startWork();
    return address;
  }

  /** The surfaces' background work: started once the port is bound (a CLI serving no HTTP calls it). */
  startWork(): void {
    if (this.working || this.closing) return;
    this.working = true;
    for (const start of this.lifecycle.starts) start();
  }

  /** Stops taking requests, lets in-flight ones finish, then stops every plugin. */
  close(): Promise<void> {
    return (this.closing ??= this.shutdown());
  }

  private async shutdown(): Promise<void> {
    this.api.phase.draining();
    this.lifecycle.closeStreams();
    const server = this.server;
    if (server) await new Promise<void>((resolve) => (server.close(() => resolve()), server.closeIdleConnections()));
    // Every step runs even when one before it fails; the audit log closes after the plugins
    // stopped (they may still record), the database last.
    const platformSteps: PlatformLifecycle['stops'] = [['auth', () => this.auth.stop()], ['kernel', () => this.kernel.stop()], ['outbound connections', () => this.platform.outbound.close()], ['audit', () => this.audit.close()], ['cluster leases', () => this.platform.leases.stop()], ['shared configuration', () => this.platform.clusterConfig?.stop()], ['database', () => this.database.close()]];
    await runStopSteps([...this.lifecycle.stops, ...platformSteps], (step, err) => this.logger.error({ step, err: err.message }, 'shutdown step failed'));
  }
}
