import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import type { WorkbenchConfig } from '../workbench-settings.js';
import { principalOf } from '../../../platform/auth/access-guard.js';
import type { AlertEngine } from './alert-engine.js';
import type { AlertOutbox } from './alert-outbox.js';
import type { AlertTargets } from './alert-targets.js';
import { parseWebhookTargets, webhookTargetId } from './webhook-targets.js';
import { SEVERITY_LABELS, type AlertNotice } from './alert-notice.js';
import { httpError, invalid } from '../../../platform/http/error-catalogue.js';
import { PLUGIN_ID_PATTERN } from '../../../../core/manifest/plugin-id.js';
import { workbenchErrors } from '../workbench-errors.js';
import { CONFIG_WRITE_ERRORS } from '../../../platform/config/config-writer.js';

const ADMIN = { scope: 'admin', administrative: true } as const;
const TARGET_ID = new RegExp(`^plugin:${PLUGIN_ID_PATTERN.source.slice(1)}`);
const ActiveAlert = z.object({ id: z.string(), type: z.string(), severity: z.string(), title: z.string(), labels: z.record(z.string(), z.string()), fired_at: z.string(), context: z.record(z.string(), z.unknown()) });
const Delivery = z.object({
  id: z.string(),
  alert_id: z.string(),
  event_id: z.string(),
  status: z.enum(['firing', 'resolved']),
  target: z.string(),
  state: z.enum(['pending', 'delivered', 'failed', 'filtered']).describe('filtered: a test alert of a severity ALERT_NOTIFY_SEVERITIES does not select (last_error says why)'),
  attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
const Target = z.object({
  id: z.string().describe('plugin:<plugin id>, the one kind of alert target'),
  plugin: z.string().describe('The alert-sink plugin that delivers'),
  instance_of: z.string().nullable().describe('A WEBHOOK_TARGETS URL: the default sink it is an instance of (removable here); null for a plugin configured on its own'),
  receiver: z.string().describe('A WEBHOOK_TARGETS URL masked after its host, or the plugin id'),
});
const Targets = z.object({ targets: z.array(Target), problems: z.array(z.string()) });

/** Alerts for operators: active alerts, recent deliveries, a test alert, and the webhook targets. */
export function registerAlertRoutes(api: HttpApi, deps: { engine: AlertEngine; outbox: AlertOutbox; targets: AlertTargets; config: WorkbenchConfig; audit: AuditLog; wake: () => void }): void {
  const targetsView = () => deps.targets.view();

  const routes = api.group({ tags: ['admin: alerts'], access: ADMIN });

  routes.route(
    { method: 'get', path: '/admin/alerts', summary: 'Alerts firing now', mcp: { name: 'list_alerts' }, responses: { 200: { description: 'Active alerts', schema: z.object({ alerts: z.array(ActiveAlert) }) } } },
    async () => ({
      alerts: (await deps.engine.active()).map((row) => {
        const { category: _category, ...context } = JSON.parse(row.context) as Record<string, unknown>;
        return { id: row.id, type: row.type, severity: row.severity, title: row.title, labels: JSON.parse(row.labels), fired_at: new Date(Number(row.fired_at)).toISOString(), context };
      }),
    }),
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/alerts/deliveries',
      summary: 'Recent alert deliveries and their outcomes',
      query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict(),
      responses: { 200: { description: 'Newest first', schema: z.object({ deliveries: z.array(Delivery) }) } },
    },
    async ({ query }) => ({
      deliveries: (await deps.outbox.recent(query.limit)).map((row) => {
        const notice = JSON.parse(row.notice) as AlertNotice;
        return {
          id: row.id,
          alert_id: row.alert_id,
          event_id: notice.event_id,
          status: notice.status,
          target: row.target_id,
          state: row.state as 'pending' | 'delivered' | 'failed' | 'filtered',
          attempts: row.attempts,
          last_status: row.last_status,
          last_error: row.last_error,
          created_at: new Date(Number(row.created_at)).toISOString(),
          finished_at: row.finished_at === null ? null : new Date(Number(row.finished_at)).toISOString(),
        };
      }),
    }),
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/alerts/test',
      summary: 'Send a test alert to one target',
      description:
        'Writes one notice of type "test" to the outbox for the target; follow it in /admin/alerts/deliveries. Without `severity` it is info and not filtered; ' +
        'with `severity` it passes ALERT_NOTIFY_SEVERITIES like any alert, and a drop is listed as state "filtered" with its reason.',
      body: z
        .object({
          target: z.string().min(1).describe('A target id from GET /admin/integrations/webhooks'),
          severity: z.enum(SEVERITY_LABELS).optional().describe('Test the severity filter: the notice carries this severity and is filtered like any alert'),
        })
        .strict(),
      responses: {
        202: { description: 'Queued, or recorded as filtered', schema: z.object({ alert_id: z.string(), event_id: z.string(), target: z.string(), severity: z.string(), filtered: z.boolean().describe('true: the severity filter dropped it (see the deliveries listing)') }) },
      },
      errors: ['alert_target_not_found'],
    },
    async ({ body, res }) => {
      if (!targetsView().targets.some((t) => t.id === body.target)) throw workbenchErrors.error('alert_target_not_found', { target: body.target });
      const now = new Date();
      const key = `test:${randomUUID()}`;
      const severity = body.severity ?? 'info';
      const notice: AlertNotice = { id: 'test:switchboard', event_id: `test:switchboard/${key}`, type: 'test', category: 'test', severity, status: 'firing', title: 'Switchboard test alert', labels: {}, starts_at: now.toISOString(), ends_at: null, sent_at: now.toISOString(), context: { requested_by: principalOf(res).keyId ?? principalOf(res).kind } };
      const verdict = body.severity ? deps.engine.severityFilter(notice) : ({ pass: true } as const);
      if (verdict.pass) await deps.outbox.enqueue(notice, key, [body.target]);
      else await deps.outbox.recordFiltered(notice, key, [body.target], verdict.detail);
      deps.audit.record('alert_test_sent', { target: body.target, severity, filtered: !verdict.pass, by: principalOf(res).keyId ?? principalOf(res).kind });
      if (verdict.pass) deps.wake();
      res.status(202);
      return { alert_id: notice.id, event_id: notice.event_id, target: body.target, severity, filtered: !verdict.pass };
    },
  );

  routes.route(
    { method: 'get', path: '/admin/integrations/webhooks', summary: 'Alert targets: WEBHOOK_TARGETS (masked) and active alert-sink plugins', responses: { 200: { description: 'Targets', schema: Targets } } },
    () => targetsView(),
  );

  /** The rules every stored target meets (one list in WEBHOOK_TARGETS, so no comma inside a URL); a refusal is 422 naming `field`. */
  const refuseBadTargets = (field: string, urls: string[]) => {
    if (urls.some((u) => u.includes(','))) throw invalid(field, 'a target URL must not contain a comma');
    const { problems } = parseWebhookTargets(urls.join(','), deps.config.get('ALERT_ALLOW_HTTP_LOOPBACK'));
    if (problems.length) throw invalid(field, `refused: ${problems.join('; ')}`);
  };

  routes.route(
    {
      method: 'put',
      path: '/admin/integrations/webhooks',
      summary: 'Replace WEBHOOK_TARGETS',
      description: 'HTTPS URLs only (plain http only for loopback with ALERT_ALLOW_HTTP_LOOPBACK). Stored in the JSON config file; an environment value still wins. URLs are secrets: the answer masks them.',
      body: z.object({ targets: z.array(z.string().min(1).max(2048)).max(50) }).strict(),
      errors: CONFIG_WRITE_ERRORS,
      responses: { 200: { description: 'Stored', schema: Targets.extend({ env_overridden: z.boolean() }) } },
    },
    async ({ body, res }) => {
      refuseBadTargets('targets', body.targets);
      return store(body.targets, res);
    },
  );

  // Add and remove one target: a client that sees only masked URLs can still edit the list.
  const storedUrls = () => (deps.config.get('WEBHOOK_TARGETS') ?? '').split(',').map((s: string) => s.trim()).filter(Boolean);
  const store = async (targets: string[], res: Parameters<typeof principalOf>[0]) => {
    const result = await deps.config.update({ WEBHOOK_TARGETS: targets.length ? targets.join(',') : null });
    deps.audit.record('settings_changed', { keys: 'WEBHOOK_TARGETS', by: principalOf(res).keyId ?? principalOf(res).kind });
    return { ...targetsView(), env_overridden: result.envOverridden.includes('WEBHOOK_TARGETS') };
  };

  routes.route(
    {
      method: 'post',
      path: '/admin/integrations/webhooks/targets',
      summary: 'Add one URL to WEBHOOK_TARGETS',
      description: 'The same rules as PUT /admin/integrations/webhooks. Adding a URL already listed changes nothing. The answer masks every URL; the new target is named by its id.',
      body: z.object({ url: z.string().min(1).max(2048) }).strict(),
      errors: CONFIG_WRITE_ERRORS,
      responses: { 201: { description: 'Stored', schema: Targets.extend({ env_overridden: z.boolean(), id: z.string().describe('The id of the added target') }) } },
    },
    async ({ body, res }) => {
      const url = body.url.trim();
      refuseBadTargets('url', [url]);
      const current = storedUrls();
      const answer = await store(current.includes(url) ? current : [...current, url], res);
      res.status(201);
      return { ...answer, id: webhookTargetId(url) };
    },
  );

  routes.route(
    {
      method: 'delete',
      path: '/admin/integrations/webhooks/targets/:id',
      summary: 'Remove one URL from WEBHOOK_TARGETS, by its target id',
      params: z.object({ id: z.string().regex(TARGET_ID, 'id must be a target id (plugin:<plugin id>)') }),
      errors: ['alert_target_not_found', ...CONFIG_WRITE_ERRORS],
      responses: { 200: { description: 'Removed', schema: Targets.extend({ env_overridden: z.boolean() }) } },
    },
    async ({ params, res }) => {
      const current = storedUrls();
      const kept = current.filter((u) => webhookTargetId(u) !== params.id);
      if (kept.length === current.length) throw workbenchErrors.error('alert_target_not_found', { target: params.id });
      return store(kept, res);
    },
  );
}
