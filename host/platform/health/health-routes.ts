import { z } from 'zod';
import type { Registry } from 'prom-client';
import type { Kernel } from '../../../core/kernel/kernel.js';
import type { HttpApi } from '../http/api.js';
import type { Readiness } from './readiness.js';

const Check = z.object({ name: z.string(), ok: z.boolean(), warning: z.boolean().optional().describe('Passed with a warning: it does not make the gateway not ready'), optional: z.boolean().optional().describe('Failed, but the dependency serves only once selected: it does not make the gateway not ready'), detail: z.string().optional(), info: z.record(z.string(), z.unknown()).optional() });
const ReadyReport = z.object({ status: z.enum(['ready', 'not_ready']), checks: z.array(Check) });

export function registerHealthRoutes(api: HttpApi, deps: { kernel: Kernel; readiness: Readiness; metrics: Registry }): void {
  const routes = api.group({ tags: ['health'], access: 'public' });

  routes.route(
    {
      method: 'get',
      path: '/health',
      servesWhileStarting: true,
      summary: 'Liveness',
      responses: { 200: { description: 'The process is up', schema: z.object({ status: z.literal('ok') }) } },
    },
    () => ({ status: 'ok' }),
  );

  routes.route(
    {
      method: 'get',
      path: '/health/ready',
      servesWhileStarting: true,
      summary: 'Readiness: one check per dependency and per active plugin',
      responses: {
        200: { description: 'Every check passed', schema: ReadyReport },
        503: { description: 'At least one check failed', schema: ReadyReport },
      },
    },
    async ({ res }) => {
      const health = await deps.kernel.checkHealth();
      const pluginChecks = Object.entries(health).map(([id, h]) => {
        // A fax provider's directions show which way it serves (inbound only, say).
        const directions = deps.kernel.get(id)?.directions;
        const info = { ...h.info, ...(directions ? { directions } : {}) };
        return { name: `plugin:${id}`, ok: h.ok, ...(h.optional ? { optional: true } : {}), ...(h.detail ? { detail: h.detail } : {}), ...(Object.keys(info).length ? { info } : {}) };
      });
      const report = await deps.readiness.run(pluginChecks);
      res.status(report.status === 'ready' ? 200 : 503);
      return report;
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/metrics',
      servesWhileStarting: true,
      summary: 'Prometheus metrics',
      responses: { 200: { description: 'Prometheus text exposition', contentType: 'text/plain' } },
    },
    async ({ res }) => {
      res.setHeader('Content-Type', deps.metrics.contentType);
      res.send(await deps.metrics.metrics());
    },
  );
}
