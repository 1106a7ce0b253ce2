import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import { ErrorBody, HttpError } from '../../../platform/http/errors.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { ContainerControls, type ContainerAction } from './container-controls.js';

const ServiceParam = z.object({ service: z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'must be a service key ([a-z0-9_.-])') });
const ActionParams = ServiceParam.extend({ action: z.enum(['start', 'stop', 'restart']) });
const ActionBody = z
  .object({ confirm: z.union([z.literal(true), z.string()]).optional().describe('true, or the service key typed out (required for core services)') })
  .strict()
  .optional();
const LogsQuery = z.object({ tail: z.coerce.number().int().min(1).max(1000).optional().describe('Lines from the end (default docker.logs_tail_default, at most 1000)') }).strict();
const Container = z.object({
  id: z.string(),
  short_id: z.string(),
  name: z.string(),
  image: z.string(),
  state: z.string(),
  status: z.string(),
  ports: z.array(z.string()),
  compose_project: z.string(),
  compose_service: z.string(),
  managed: z.boolean(),
});
const Status = z.object({
  running: z.boolean(),
  runtime: z.string().nullable(),
  version: z.string().nullable(),
  project_name: z.string(),
  containers_count: z.number().int(),
  detail: z.string().optional(),
});
const Services = z.object({
  project: z.string(),
  services: z.array(z.object({ service: z.string(), state: z.string(), core: z.boolean(), optional: z.boolean(), containers: z.array(Container) })),
});
const ActionResult = z.object({ success: z.literal(true), service: z.string(), action: z.enum(['start', 'stop', 'restart']), state: z.string() });
const LogsResult = z.object({ success: z.literal(true), service: z.string(), tail: z.number().int(), logs: z.string() });

/** Every call opens the local engine (a remote DOCKER_HOST is refused) and may find it silent or failing. */
const ENGINE_ERRORS = ['remote_engine_refused', 'engine_unreachable', 'container_action_failed'];
/** A call on one service finds exactly one container it owns. */
const SERVICE_ERRORS = [...ENGINE_ERRORS, 'service_not_found', 'service_ambiguous', 'ownership_changed'];

export function containerSettingsOf(config: WorkbenchConfig) {
  return () => ({
    dockerHost: config.get('DOCKER_HOST'),
    project: config.get('docker.project'),
    services: config.get('docker.services'),
    coreServices: config.get('docker.core_services'),
    optionalServices: config.get('docker.optional_services'),
    timeoutS: config.get('docker.timeout_s'),
    logsTailDefault: config.get('docker.logs_tail_default'),
  });
}

/** GET /api/docker/status, /api/docker/services, POST .../{service}/{action}, GET .../{service}/logs. Loopback callers only. */
export function registerContainerRoutes(api: HttpApi, deps: { config: WorkbenchConfig; audit: AuditLog }): void {
  const controls = new ContainerControls(containerSettingsOf(deps.config));

  const routes = api.group({ tags: ['workbench: containers'], access: 'loopback' });

  routes.route(
    {
      method: 'get',
      path: '/api/docker/status',
      summary: 'Container engine status and the number of managed containers',
      errors: ['remote_engine_refused'],
      responses: { 200: { description: 'Engine status; running is false when no engine answers on the socket', schema: Status } },
    },
    () => controls.status(),
  );

  routes.route(
    {
      method: 'get',
      path: '/api/docker/services',
      summary: 'Allowlisted services of the compose project and their state',
      description: 'State is the container state (running, exited, ...), "missing" when not created, "optional, not deployed" for an absent optional service, "ambiguous" when several managed containers claim the service.',
      errors: ENGINE_ERRORS,
      responses: { 200: { description: 'Services', schema: Services } },
    },
    () => controls.services(),
  );

  routes.route(
    {
      method: 'post',
      path: '/api/docker/services/:service/:action',
      summary: 'Start, stop or restart one managed service',
      description:
        'Stop and restart need {"confirm": true}; for a core data or ingress service (docker.core_services) the service key typed out, {"confirm": "<service>"}. Start needs nothing. Every call is audited.',
      params: ActionParams,
      body: ActionBody,
      errors: [...SERVICE_ERRORS, 'confirmation_required'],
      responses: { 200: { description: 'Done; the state after the action', schema: ActionResult } },
    },
    async ({ params, body, req }) => {
      const action = params.action as ContainerAction;
      const by = req.socket.remoteAddress ?? 'unknown';
      try {
        const result = await controls.act(params.service, action, body?.confirm);
        deps.audit.record('container_action', { service: params.service, action, result: 'ok', by });
        return result;
      } catch (err) {
        const status = api.errors.toHttp(err)?.status ?? 500;
        deps.audit.record('container_action', { service: params.service, action, result: status === 409 || status === 404 || status === 403 ? 'refused' : 'failed', status, by });
        throw err;
      }
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/api/docker/services/:service/logs',
      summary: 'Recent log lines of one managed service',
      params: ServiceParam,
      query: LogsQuery,
      errors: SERVICE_ERRORS,
      responses: { 200: { description: 'The last lines, stdout and stderr interleaved', schema: LogsResult } },
    },
    ({ params, query }) => controls.logs(params.service, query.tail),
  );
}
