import { z } from 'zod';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { WorkbenchConfig } from '../workbench-settings.js';

const Dependency = z.object({ name: z.string(), ready: z.boolean(), detail: z.string().optional(), hint: z.string().optional(), info: z.record(z.string(), z.unknown()).optional() });
const ReadyBody = z.object({ ready: z.boolean(), dependencies: z.array(Dependency), missing: z.array(z.string()) });

/**
 * GET /api/ready: the workbench's dependencies. The data store always; the self-hosted judge
 * only while system_one.provider is selfhosted (its /health: ready once a checkpoint is resident).
 */
export function registerWorkbenchReadyRoute(api: HttpApi, deps: { kernel: Kernel; config: WorkbenchConfig; pingDatabase: () => Promise<void> }): void {
  api.route(
    {
      method: 'get',
      path: '/api/ready',
      summary: 'Workbench readiness: the data store and, while system_one.provider is selfhosted, the self-hosted judge',
      tags: ['workbench: status'],
      access: 'public',
      responses: { 200: { description: 'Every dependency is ready', schema: ReadyBody }, 503: { description: 'A dependency is not ready; missing names it', schema: ReadyBody } },
    },
    async ({ res }) => {
      const dependencies: Array<z.infer<typeof Dependency>> = [];
      try {
        await deps.pingDatabase();
        dependencies.push({ name: 'database', ready: true });
      } catch (err) {
        dependencies.push({ name: 'database', ready: false, detail: `the data store does not answer: ${(err as Error).message}`, hint: 'check DATABASE_URL (or DATA_DIR for SQLite)' });
      }
      // The manifests say which plugin the spec's `selfhosted` is; the dependency is named by its id.
      const id = deps.kernel.pluginIdFor('selfhosted');
      if (id !== undefined && deps.kernel.pluginIdFor(deps.config.get('system_one.provider')) === id) {
        const hint = 'start the managed service (switchboard judge-server) or set system_one.provider to hosted';
        if (!deps.kernel.isActive('judge', id)) {
          dependencies.push({ name: id, ready: false, detail: `plugin ${id} is ${deps.kernel.stateOf(id)}`, hint });
        } else {
          // The plugin reports the server behind it: ready once a checkpoint is resident.
          const health = (await deps.kernel.checkHealth(id))[id];
          const ready = Boolean(health?.ok && health.info?.resident === true);
          dependencies.push({ name: id, ready, ...(health?.detail ? { detail: health.detail } : {}), ...(ready ? {} : { hint }), ...(health?.info ? { info: health.info } : {}) });
        }
      }
      const missing = dependencies.filter((d) => !d.ready).map((d) => d.name);
      res.status(missing.length ? 503 : 200);
      return { ready: missing.length === 0, dependencies, missing };
    },
  );
}
