import { z } from 'zod';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { actorOf, principalOf } from '../../../platform/auth/access-guard.js';
import { grants } from '../../../platform/auth/scopes.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { decodeCursor, encodeCursor, PageQuery } from '../../../platform/http/cursor.js';
import { faxErrors } from '../fax-errors.js';
import type { FaxConfig } from '../fax-settings.js';
import type { DeliveryOutbox, DeliveryRow } from './delivery-outbox.js';
import type { EventDelivery } from './event-delivery.js';
import { CALLBACK_DESTINATION, subscriptionDestination } from './event-publisher.js';
import { FaxEventSchema, FaxEventType, scopesForEvent } from './fax-events.js';
import type { Subscription, SubscriptionStore } from './subscription-store.js';
import { checkedWebhookUrl } from './webhook-url.js';

const SubscriptionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(FaxEventType),
    description: z.string().nullable(),
    created_at: z.string().describe('ISO 8601'),
  })
  .meta({ id: 'WebhookSubscription' });
const NewSubscriptionSchema = SubscriptionSchema.extend({
  secret: z.string().describe('The signing secret (X-Switchboard-Signature): shown this once, never again'),
});
const DeliverySchema = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: FaxEventType,
    subject_id: z.string().describe('The fax job (or inbound fax) the event is about'),
    subscription_id: z.string().nullable().describe("null: the job's callback_url"),
    url: z.string(),
    state: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    last_status: z.number().int().nullable().describe("The receiver's last HTTP status; null when it did not answer"),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable().describe('ISO 8601, while pending'),
    finished_at: z.string().nullable().describe('ISO 8601'),
    event: FaxEventSchema.describe('The body sent (the signature is made at each attempt)'),
  })
  .meta({ id: 'WebhookDelivery' });
const IdParams = z.object({ id: z.string().min(1).max(100) });
const ACCESS = { scope: 'webhooks:manage' } as const;

const subscriptionOut = (s: Subscription) => ({ id: s.id, url: s.url, events: s.events, description: s.description, created_at: s.created_at });
const deliveryOut = (d: DeliveryRow): z.infer<typeof DeliverySchema> => ({
  id: d.id,
  event_id: d.event_id,
  event_type: d.event_type as FaxEventType,
  subject_id: d.subject_id,
  subscription_id: d.destination === CALLBACK_DESTINATION ? null : d.destination.slice(d.destination.indexOf(':') + 1),
  url: d.url,
  state: d.state as 'pending' | 'delivered' | 'failed',
  attempts: d.attempts,
  last_status: d.last_status,
  last_error: d.last_error,
  next_attempt_at: d.state === 'pending' ? new Date(Number(d.next_attempt_at)).toISOString() : null,
  finished_at: d.finished_at === null ? null : new Date(Number(d.finished_at)).toISOString(),
  event: JSON.parse(d.body) as z.infer<typeof FaxEventSchema>,
});

export interface StatusEventRouteDeps {
  subscriptions: SubscriptionStore;
  outbox: DeliveryOutbox;
  delivery: Pick<EventDelivery, 'wake'>;
  config: FaxConfig;
  outbound: OutboundGuard;
  audit: AuditLog;
}

/** /webhooks/subscriptions and /webhooks/deliveries: a key's subscriptions to status events and the log of their deliveries. */
export function registerStatusEventRoutes(api: HttpApi, deps: StatusEventRouteDeps): void {
  const { subscriptions, outbox, audit } = deps;
  const routes = api.group({ tags: ['webhooks'], access: ACCESS });
  const ownSubscription = async (id: string, owner: string) => {
    const found = await subscriptions.get(id);
    if (!found || found.owner !== owner) throw faxErrors.error('webhook_subscription_not_found', { id });
    return found;
  };
  const ownDelivery = async (id: string, owner: string) => {
    const found = await outbox.get(id);
    if (!found || found.owner !== owner) throw faxErrors.error('webhook_delivery_not_found', { id });
    return found;
  };

  routes.route(
    {
      method: 'post',
      path: '/webhooks/subscriptions',
      summary: "Subscribe a URL to status events; the answer holds the signing secret, shown once",
      description: 'Fax events need fax:read or fax:send, inbound.received needs inbound:list; numbers are in full when the key holds fax:read (inbound:read for inbound.received). Deliveries: docs/fax/webhooks.md.',
      body: z.object({
        url: z.string().max(2000).describe('https (plain http to loopback only with ALERT_ALLOW_HTTP_LOOPBACK)'),
        events: z.array(FaxEventType).min(1).max(FaxEventType.options.length),
        description: z.string().trim().max(200).optional(),
      }),
      errors: ['webhook_url_refused', 'webhook_event_not_permitted', 'webhook_subscription_limit'],
      responses: { 201: { description: 'Subscribed', schema: NewSubscriptionSchema } },
    },
    async ({ body, res }) => {
      const principal = principalOf(res);
      const owner = actorOf(res);
      for (const event of body.events) {
        const scopes = scopesForEvent(event);
        if (!scopes.some((s) => grants(principal.scopes, s))) throw faxErrors.error('webhook_event_not_permitted', { event, scope: scopes.join(' or ') });
      }
      const url = checkedWebhookUrl('url', body.url, deps);
      const limit = deps.config.get('WEBHOOK_SUBSCRIPTIONS_PER_KEY');
      if ((await subscriptions.ofOwner(owner)).length >= limit) throw faxErrors.error('webhook_subscription_limit', { limit });
      const created = await subscriptions.create({ owner, scopes: principal.scopes, url, events: [...new Set(body.events)], description: body.description ?? null });
      audit.record('webhook_subscription_created', { subscription_id: created.id, events: created.events.join(','), host: new URL(url).host, by: owner });
      res.status(201);
      return { ...subscriptionOut(created), secret: created.secret };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/webhooks/subscriptions',
      summary: "The key's subscriptions (without their secrets)",
      responses: { 200: { description: 'Every subscription of this key', schema: z.object({ subscriptions: z.array(SubscriptionSchema) }) } },
    },
    async ({ res }) => ({ subscriptions: (await subscriptions.ofOwner(actorOf(res))).map(subscriptionOut) }),
  );

  routes.route(
    {
      method: 'get',
      path: '/webhooks/subscriptions/:id',
      summary: 'One subscription of the key',
      params: IdParams,
      errors: ['webhook_subscription_not_found'],
      responses: { 200: { description: 'The subscription', schema: SubscriptionSchema } },
    },
    async ({ params, res }) => subscriptionOut(await ownSubscription(params.id, actorOf(res))),
  );

  routes.route(
    {
      method: 'delete',
      path: '/webhooks/subscriptions/:id',
      summary: 'Delete a subscription; its pending deliveries fail',
      params: IdParams,
      errors: ['webhook_subscription_not_found'],
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ params, res }) => {
      const owner = actorOf(res);
      if (!(await subscriptions.delete(params.id, owner))) throw faxErrors.error('webhook_subscription_not_found', { id: params.id });
      audit.record('webhook_subscription_deleted', { subscription_id: params.id, by: owner });
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/webhooks/deliveries',
      summary: "Deliveries of the key's status events, newest event first",
      query: z.object({
        subscription_id: z.string().max(100).optional().describe('One subscription\'s deliveries; `callback` for those to the callback_url of the key\'s faxes'),
        state: z.enum(['pending', 'delivered', 'failed']).optional(),
        subject_id: z.string().max(100).optional().describe('The deliveries about one fax job or inbound fax'),
        ...PageQuery,
      }),
      errors: ['webhook_subscription_not_found'],
      responses: { 200: { description: 'A page', schema: z.object({ deliveries: z.array(DeliverySchema), next_cursor: z.string().nullable() }) } },
    },
    async ({ query, res }) => {
      const owner = actorOf(res);
      let destination: string | undefined;
      if (query.subscription_id === CALLBACK_DESTINATION) destination = CALLBACK_DESTINATION;
      else if (query.subscription_id) destination = subscriptionDestination((await ownSubscription(query.subscription_id, owner)).id);
      const cursor = decodeCursor<number>(query.cursor, 'number');
      const rows = await outbox.list({ owner, destination, state: query.state, subjectId: query.subject_id }, query.limit + 1, cursor);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return { deliveries: page.map(deliveryOut), next_cursor: rows.length > query.limit && last ? encodeCursor(Number(last.event_at), last.event_id) : null };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/webhooks/deliveries/:id',
      summary: 'One delivery',
      params: IdParams,
      errors: ['webhook_delivery_not_found'],
      responses: { 200: { description: 'The delivery', schema: DeliverySchema } },
    },
    async ({ params, res }) => deliveryOut(await ownDelivery(params.id, actorOf(res))),
  );

  routes.route(
    {
      method: 'post',
      path: '/webhooks/deliveries/:id/redeliver',
      summary: 'Send a delivered or failed event again (same event id and body, a fresh signature)',
      params: IdParams,
      errors: ['webhook_delivery_not_found', 'webhook_delivery_pending'],
      responses: { 202: { description: 'Queued again', schema: DeliverySchema } },
    },
    async ({ params, res }) => {
      const owner = actorOf(res);
      const row = await ownDelivery(params.id, owner);
      if (!(await outbox.redeliver(row.id))) throw faxErrors.error('webhook_delivery_pending');
      audit.record('webhook_redelivery', { delivery_id: row.id, event_id: row.event_id, by: owner });
      deps.delivery.wake();
      res.status(202);
      return deliveryOut((await outbox.get(row.id))!);
    },
  );
}
