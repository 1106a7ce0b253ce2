import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { JudgeService } from '../../../platform/judges/judge-service.js';

const Dependency = z.object({ name: z.string(), ready: z.boolean(), detail: z.string().optional(), hint: z.string().optional(), info: z.record(z.string(), z.unknown()).optional() });
const ReadyBody = z.object({ ready: z.boolean(), dependencies: z.array(Dependency), missing: z.array(z.string()) });
type Dependency = z.infer<typeof Dependency>;

/**
 * GET /api/ready: the workbench's dependencies. The data store always; the active judge
 * (system_one.provider) while it is served on this machine (the self-hosted judge server), as its
 * plugin says through the judge contract: ready once a model is resident. A judge reached over the
 * network is not a dependency the operator runs here, so it is not listed.
 */
export function registerWorkbenchReadyRoute(api: HttpApi, deps: { judge: JudgeService; pingDatabase: () => Promise<void> }): void {
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
      const dependencies: Dependency[] = [];
      try {
        await deps.pingDatabase();
        dependencies.push({ name: 'database', ready: true });
      } catch (err) {
        dependencies.push({ name: 'database', ready: false, detail: `the data store does not answer: ${(err as Error).message}`, hint: 'check DATABASE_URL (or DATA_DIR for SQLite)' });
      }
      const judge = await activeLocalJudge(deps.judge);
      if (judge) dependencies.push(judge);
      const missing = dependencies.filter((d) => !d.ready).map((d) => d.name);
      res.status(missing.length ? 503 : 200);
      return { ready: missing.length === 0, dependencies, missing };
    },
  );
}

/** The active judge as a dependency, named by its plugin id, when it is served on this machine. */
async function activeLocalJudge(judges: JudgeService): Promise<Dependency | undefined> {
  const { pluginId } = judges.backend();
  if (pluginId === undefined) return undefined;
  const standing = await judges.standing(pluginId);
  if (standing.served !== 'local') return undefined;
  if (!standing.active || !standing.readiness) {
    return { name: pluginId, ready: false, detail: `plugin ${pluginId} is ${standing.state}`, hint: `see GET /plugins/${pluginId} for its state and last error, or set system_one.provider to another judge` };
  }
  const { ready, detail, hint, info } = standing.readiness;
  return { name: pluginId, ready, ...(detail ? { detail } : {}), ...(!ready && hint ? { hint } : {}), ...(info ? { info } : {}) };
}
