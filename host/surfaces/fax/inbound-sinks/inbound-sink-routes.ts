import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { actorOf } from '../../../platform/auth/access-guard.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { decodeCursor, encodeCursor, PageQuery } from '../../../platform/http/cursor.js';
import { faxErrors } from '../fax-errors.js';
import type { DeliveryOutbox, DeliveryRow } from '../status-events/delivery-outbox.js';
import type { InboundSinkDeliveries, SinkTargetBody } from './sink-delivery.js';

const ADMIN = { scope: 'admin', administrative: true } as const;
const State = z.enum(['pending', 'delivered', 'failed']);
const InboundDeliverySchema = z
  .object({
    id: z.string(),
    inbound_id: z.string(),
    mailbox: z.string(),
    sink: z.string().describe('The inbound-sink plugin'),
    document: z.enum(['link', 'attach']),
    recipients: z.number().int().describe('How many recipients the target names (the addresses are on the mailbox)'),
    state: State,
    attempts: z.number().int(),
    last_error: z.string().nullable().describe("The sink's reason for the last failure"),
    next_attempt_at: z.string().nullable().describe('ISO 8601, while pending'),
    created_at: z.string().describe('ISO 8601'),
    finished_at: z.string().nullable().describe('ISO 8601'),
  })
  .meta({ id: 'InboundDelivery' });
const IdParams = z.object({ id: z.string().min(1).max(100) });

const deliveryOut = (d: DeliveryRow): z.infer<typeof InboundDeliverySchema> => {
  const target = JSON.parse(d.body) as SinkTargetBody;
  return {
    id: d.id,
    inbound_id: d.subject_id,
    mailbox: target.mailbox,
    sink: target.sink,
    document: target.document,
    recipients: target.recipients.length,
    state: d.state as z.infer<typeof State>,
    attempts: d.attempts,
    last_error: d.last_error,
    next_attempt_at: d.state === 'pending' ? new Date(Number(d.next_attempt_at)).toISOString() : null,
    created_at: new Date(Number(d.created_at)).toISOString(),
    finished_at: d.finished_at === null ? null : new Date(Number(d.finished_at)).toISOString(),
  };
};

/** /admin/inbound-deliveries: the log of inbound faxes handed to their mailbox's sinks (email), and redelivery. */
export function registerInboundSinkRoutes(api: HttpApi, deps: { outbox: DeliveryOutbox; deliveries: Pick<InboundSinkDeliveries, 'wake'>; audit: AuditLog }): void {
  const { outbox, audit } = deps;
  const routes = api.group({ tags: ['admin', 'inbound'], access: ADMIN });
  const found = async (id: string) => (await outbox.get(id)) ?? Promise.reject(faxErrors.error('inbound_delivery_not_found', { id }));

  routes.route(
    {
      method: 'get',
      path: '/admin/inbound-deliveries',
      summary: 'Inbound faxes handed to the sinks of their mailbox (email), newest first, with their state and last error',
      query: z.object({
        state: State.optional(),
        inbound_id: z.string().max(100).optional().describe("One inbound fax's deliveries"),
        mailbox: z.string().max(64).optional(),
        ...PageQuery,
      }),
      responses: { 200: { description: 'A page', schema: z.object({ deliveries: z.array(InboundDeliverySchema), next_cursor: z.string().nullable() }) } },
    },
    async ({ query }) => {
      const cursor = decodeCursor<number>(query.cursor, 'number');
      const rows = await outbox.list({ state: query.state, subjectId: query.inbound_id, owner: query.mailbox ? `mailbox:${query.mailbox}` : undefined }, query.limit + 1, cursor);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return { deliveries: page.map(deliveryOut), next_cursor: rows.length > query.limit && last ? encodeCursor(Number(last.event_at), last.event_id) : null };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/inbound-deliveries/:id',
      summary: 'One inbound sink delivery',
      params: IdParams,
      errors: ['inbound_delivery_not_found'],
      responses: { 200: { description: 'The delivery', schema: InboundDeliverySchema } },
    },
    async ({ params }) => deliveryOut(await found(params.id)),
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/inbound-deliveries/:id/redeliver',
      summary: 'Hand a delivered or failed inbound fax to its sink again (a fresh link when it is linked)',
      params: IdParams,
      errors: ['inbound_delivery_not_found', 'inbound_delivery_pending'],
      responses: { 202: { description: 'Queued again', schema: InboundDeliverySchema } },
    },
    async ({ params, res }) => {
      const row = await found(params.id);
      if (!(await outbox.redeliver(row.id))) throw faxErrors.error('inbound_delivery_pending');
      audit.record('inbound_redelivery', { delivery_id: row.id, inbound_id: row.subject_id, by: actorOf(res) });
      deps.deliveries.wake();
      res.status(202);
      return deliveryOut(await found(row.id));
    },
  );
}
