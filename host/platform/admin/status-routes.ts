import { z } from 'zod';
import type { ConfigRegistry } from '../config/registry.js';
import type { Kernel } from '../../../core/kernel/kernel.js';
import type { Readiness } from '../health/readiness.js';
import type { AuditLog } from '../audit/audit-log.js';
import { principalOf } from '../auth/access-guard.js';
import { pingDatabase, type OpenedDatabase } from '../db/database.js';
import type { Ports } from '../ports/ports.js';
import type { HttpApi } from '../http/api.js';
import { httpError } from '../http/error-catalogue.js';

const ADMIN = { scope: 'admin', administrative: true } as const;

const Check = z.object({ name: z.string(), ok: z.boolean(), warning: z.boolean().optional().describe('Passed with a warning (e.g. no fax backend configured yet)'), detail: z.string().optional(), info: z.record(z.string(), z.unknown()).optional() });
const PluginHealth = z.object({ id: z.string(), state: z.string(), generation: z.number().int().nullable(), ok: z.boolean().nullable(), detail: z.string().nullable(), last_error: z.string().nullable() });
export const HealthStatus = z.object({ status: z.enum(['ready', 'not_ready']), checks: z.array(Check), plugins: z.array(PluginHealth) });
export const DbStatus = z.object({
  dialect: z.enum(['sqlite', 'postgres']),
  location: z.string().describe('SQLite file, or host:port/database (never credentials)'),
  connected: z.boolean(),
  latency_ms: z.number().nullable(),
  error: z.string().optional(),
  jobs_by_status: z.record(z.string(), z.number().int()),
  inbound_count: z.number().int(),
  api_keys: z.number().int(),
  audit_events: z.number().int(),
});
export const Diagnostics = z.object({
  generated_at: z.string(),
  versions: z.object({ host: z.string(), node: z.string(), ghostscript: z.string().nullable() }),
  readiness: HealthStatus,
  database: DbStatus,
  config_problems: z.array(z.string()),
  settings: z.object({ fax_backend: z.string(), storage_backend: z.string(), inbound_enabled: z.boolean(), audit_enabled: z.boolean(), api_keys_required: z.boolean(), artifact_ttl_days: z.number().int() }),
});

export interface StatusRouteDeps {
  config: ConfigRegistry;
  kernel: Kernel;
  readiness: Readiness;
  database: OpenedDatabase;
  ports: Ports;
  audit: AuditLog;
  version: string;
  authRequired: () => boolean;
  /** Drains the gateway and exits (POST /admin/restart). */
  restart: () => Promise<void>;
}

export function registerAdminStatusRoutes(api: HttpApi, deps: StatusRouteDeps): void {
  const { config, kernel, database } = deps;

  async function healthStatus(): Promise<z.infer<typeof HealthStatus>> {
    const health = await kernel.checkHealth();
    const report = await deps.readiness.run();
    const plugins = kernel.list().map((p) => {
      const h = health[p.id];
      return { id: p.id, state: p.state, generation: p.generation, ok: h ? h.ok : null, detail: h?.detail ?? null, last_error: p.last_error };
    });
    return { status: report.status, checks: report.checks, plugins };
  }

  async function dbStatus(): Promise<z.infer<typeof DbStatus>> {
    const base = { dialect: database.dialect, location: database.location };
    const started = performance.now();
    try {
      await pingDatabase(database.db);
      const latency = Math.round((performance.now() - started) * 100) / 100;
      const count = async (table: 'api_keys' | 'audit_events') =>
        Number((await database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0);
      const fax = deps.ports.get('faxStatus');
      return {
        ...base,
        connected: true,
        latency_ms: latency,
        jobs_by_status: (await fax?.jobsByStatus()) ?? {},
        inbound_count: (await fax?.inboundCount()) ?? 0,
        api_keys: await count('api_keys'),
        audit_events: await count('audit_events'),
      };
    } catch (err) {
      return { ...base, connected: false, latency_ms: null, error: (err as Error).message.replace(/\/\/[^@/]*@/g, '//***@'), jobs_by_status: {}, inbound_count: 0, api_keys: 0, audit_events: 0 };
    }
  }

  const routes = api.group({ tags: ['admin'], access: ADMIN });

  routes.route(
    {
      method: 'get',
      path: '/admin/health-status',
      summary: 'Readiness checks and the health of every plugin, in one view',
      responses: { 200: { description: 'Aggregated health', schema: HealthStatus } },
    },
    () => healthStatus(),
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/db-status',
      summary: 'Database dialect, location, connectivity and row counts',
      responses: { 200: { description: 'Database status', schema: DbStatus } },
    },
    () => dbStatus(),
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/diagnostics/run',
      summary: 'One-shot diagnostics bundle: versions, readiness, plugins, database, configuration problems (no secrets)',
      responses: { 200: { description: 'The bundle', schema: Diagnostics } },
    },
    async () => {
      const fax = deps.ports.get('faxStatus')?.settings();
      return {
      generated_at: new Date().toISOString(),
      versions: { host: deps.version, node: process.version, ghostscript: (await deps.ports.get('faxStatus')?.rendererVersion()) ?? null },
      readiness: await healthStatus(),
      database: await dbStatus(),
      config_problems: config.problems(),
      settings: {
        fax_backend: fax?.backend ?? '',
        storage_backend: config.get('STORAGE_BACKEND'),
        inbound_enabled: fax?.inboundEnabled ?? false,
        audit_enabled: config.get('AUDIT_LOG_ENABLED'),
        api_keys_required: deps.authRequired(),
        artifact_ttl_days: fax?.artifactTtlDays ?? 0,
      },
      };
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/restart',
      summary: 'Drain and exit with code 0 so the supervisor restarts the gateway (ADMIN_ALLOW_RESTART=true)',
      errors: ['restart_not_allowed'],
      responses: { 202: { description: 'Restarting', schema: z.object({ status: z.literal('restarting') }) } },
    },
    ({ res }) => {
      if (!config.get('ADMIN_ALLOW_RESTART')) throw httpError('restart_not_allowed');
      deps.audit.record('restart_requested', { by: principalOf(res).keyId ?? principalOf(res).kind });
      // The answer goes out first; the drain starts once it is written.
      res.once('finish', () => void deps.restart());
      res.status(202);
      return { status: 'restarting' as const };
    },
  );
}
