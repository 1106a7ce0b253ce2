import { z } from 'zod';
import type { AuditLog } from '../../../platform/audit/audit-log.js';
import { actorOf } from '../../../platform/auth/access-guard.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { faxErrors } from '../fax-errors.js';
import type { FaxConfig } from '../fax-settings.js';
import { ruleTakenBy, type MailboxStore } from './mailbox-store.js';
import { callerMailboxes, inMailboxes } from './mailbox-limit.js';

const ADMIN = { scope: 'admin', administrative: true } as const;

const Rule = z.object({
  match: z.enum(['exact', 'prefix']).describe('`exact`: this called number; `prefix`: every called number starting with it (the longest prefix wins)'),
  number: z.string().trim().regex(/^\+?\d{1,20}$/, 'a number is an optional "+" and digits').describe('A called number, E.164 as providers report it'),
});
const Numbers = z.array(Rule).max(200);
const Sink = z.object({
  sink: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a sink is the id of an inbound-sink plugin').describe('The id of an inbound-sink plugin (the built-in email sink, say)'),
  recipients: z.array(z.string().trim().min(1).max(320)).min(1).max(50).describe('Where the sink sends the fax (email addresses for the email sink)'),
  document: z.enum(['link', 'attach']).default('link').describe('`link` (default): a URL of the PDF valid INBOUND_SINK_LINK_TTL_SECONDS (a day by default); `attach`: the PDF itself (it then travels through the recipients\' mail servers)'),
});
const Sinks = z.array(Sink).max(10).describe('Inbound sink targets: every fax stored in this mailbox is handed to each (durable, retried; GET /admin/inbound-deliveries)');
const Mailbox = z
  .object({
    name: z.string(),
    description: z.string().nullable(),
    numbers: z.array(Rule),
    sinks: z.array(Sink),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Mailbox' });
const NameParams = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a mailbox name is lowercase letters, digits, ".", "_" and "-"') });
const Description = z.string().trim().max(500).nullable().optional();

/** /admin/mailboxes: named mailboxes and the called numbers inbound faxes are routed to them by. */
export function registerMailboxRoutes(api: HttpApi, deps: { mailboxes: MailboxStore; config: FaxConfig; audit: AuditLog }): void {
  const { mailboxes, audit } = deps;
  const routes = api.group({ tags: ['admin', 'inbound'], access: ADMIN });
  const taken = async (name: string, numbers: z.infer<typeof Numbers>) => {
    const clash = ruleTakenBy(await mailboxes.list(), name, numbers);
    if (clash) throw faxErrors.error('mailbox_number_taken', { number: clash.rule.number, mailbox: clash.mailbox });
  };

  routes.route(
    {
      method: 'get',
      path: '/admin/mailboxes',
      summary: 'Mailboxes, with the called numbers routed to each and the mailbox of every other number',
      mcp: { name: 'list_mailboxes', description: 'Inbound mailboxes with the called numbers routed to each (list_inbound takes a mailbox)' },
      responses: { 200: { description: 'Every mailbox', schema: z.object({ mailboxes: z.array(Mailbox), default_mailbox: z.string().describe('Where a fax whose called number matches no rule goes (INBOUND_DEFAULT_MAILBOX)') }) } },
    },
    async ({ res }) => ({ mailboxes: (await mailboxes.list()).filter((m) => inMailboxes(callerMailboxes(res), m.name)), default_mailbox: deps.config.get('INBOUND_DEFAULT_MAILBOX') }),
  );

  routes.route(
    {
      method: 'post',
      path: '/admin/mailboxes',
      summary: 'Create a mailbox and the called numbers routed to it',
      body: z.object({ name: NameParams.shape.name, description: Description, numbers: Numbers.default([]), sinks: Sinks.default([]) }),
      errors: ['mailbox_exists', 'mailbox_number_taken'],
      responses: { 201: { description: 'Created', schema: Mailbox } },
    },
    async ({ body, res }) => {
      await taken(body.name, body.numbers);
      if (!(await mailboxes.create(body.name, body.description ?? null, body.numbers, body.sinks))) throw faxErrors.error('mailbox_exists', { name: body.name });
      audit.record('mailbox_created', { mailbox: body.name, numbers: body.numbers.length, sinks: body.sinks.map((s) => s.sink).join(','), by: actorOf(res) });
      res.status(201);
      return mailboxes.get(body.name);
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/mailboxes/:name',
      summary: 'One mailbox',
      params: NameParams,
      errors: ['mailbox_not_found'],
      responses: { 200: { description: 'The mailbox', schema: Mailbox } },
    },
    async ({ params }) => (await mailboxes.get(params.name)) ?? Promise.reject(faxErrors.error('mailbox_not_found', { name: params.name })),
  );

  routes.route(
    {
      method: 'put',
      path: '/admin/mailboxes/:name',
      summary: "Replace a mailbox's description, numbers and (when given) sinks",
      params: NameParams,
      body: z.object({ description: Description, numbers: Numbers, sinks: Sinks.optional().describe('Absent: the mailbox keeps its sinks') }),
      errors: ['mailbox_not_found', 'mailbox_number_taken'],
      responses: { 200: { description: 'Replaced', schema: Mailbox } },
    },
    async ({ params, body, res }) => {
      await taken(params.name, body.numbers);
      if (!(await mailboxes.update(params.name, body.description ?? null, body.numbers, body.sinks))) throw faxErrors.error('mailbox_not_found', { name: params.name });
      audit.record('mailbox_updated', { mailbox: params.name, numbers: body.numbers.length, ...(body.sinks ? { sinks: body.sinks.map((s) => s.sink).join(',') } : {}), by: actorOf(res) });
      return mailboxes.get(params.name);
    },
  );

  routes.route(
    {
      method: 'delete',
      path: '/admin/mailboxes/:name',
      summary: 'Delete a mailbox (faxes already routed to it keep its name)',
      params: NameParams,
      errors: ['mailbox_not_found'],
      responses: { 204: { description: 'Deleted' } },
    },
    async ({ params, res }) => {
      if (!(await mailboxes.remove(params.name))) throw faxErrors.error('mailbox_not_found', { name: params.name });
      audit.record('mailbox_deleted', { mailbox: params.name, by: actorOf(res) });
    },
  );
}
