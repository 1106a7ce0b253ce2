import { z } from 'zod';
import { actorOf } from '../../../platform/auth/access-guard.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { faxErrors } from '../fax-errors.js';
import type { FaxConfig } from '../fax-settings.js';
import type { InboundStore } from '../inbound/inbound-store.js';
import { jobOrNotFound } from '../jobs/fax-job-out.js';
import type { FaxJobStore } from '../jobs/job-store.js';
import type { MediaDeletion } from './media-deletion.js';
import { callerMailboxes, inMailboxes } from '../mailboxes/mailbox-limit.js';

const IdParams = z.object({ id: z.string().min(1).max(100) });

/** DELETE /fax/{id}/document and DELETE /inbound/{id}: media removed on request, the records kept as tombstones. */
export function registerMediaDeletionRoutes(api: HttpApi, deps: { deletion: MediaDeletion; store: FaxJobStore; inbound: InboundStore; config: FaxConfig }): void {
  api.route(
    {
      method: 'delete',
      path: '/fax/:id/document',
      summary: "Delete a final job's stored document everywhere it lives; the job stays, later PDF requests answer 410",
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      params: IdParams,
      errors: ['fax_job_not_found', 'fax_document_in_use', 'plugin_not_available'],
      responses: { 204: { description: 'Deleted (also when it was deleted already)' } },
    },
    async ({ params, res }) => {
      await deps.deletion.deleteJobDocument(await jobOrNotFound(deps.store, params.id), actorOf(res));
      res.status(204);
    },
  );

  api.route(
    {
      method: 'delete',
      path: '/inbound/:id',
      summary: "Delete an inbound fax's stored document; the record stays (with `deleted_at`), its PDF answers 410",
      tags: ['inbound'],
      access: { scope: 'inbound:read' },
      rateLimit: { bucket: 'inbound_get', perMinute: () => deps.config.get('INBOUND_GET_RPM') },
      params: IdParams,
      errors: ['inbound_disabled', 'inbound_fax_not_found', 'plugin_not_available'],
      responses: { 204: { description: 'Deleted (also when it was deleted already)' } },
    },
    async ({ params, res }) => {
      if (!deps.config.get('INBOUND_ENABLED')) throw faxErrors.error('inbound_disabled');
      const row = await deps.inbound.get(params.id);
      if (!row || !inMailboxes(callerMailboxes(res), row.mailbox)) throw faxErrors.error('inbound_fax_not_found', { id: params.id });
      await deps.deletion.deleteInbound(row, actorOf(res));
      res.status(204);
    },
  );
}
