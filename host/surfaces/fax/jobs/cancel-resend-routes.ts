import { z } from 'zod';
import { actorOf } from '../../../platform/auth/access-guard.js';
import type { HttpApi } from '../../../platform/http/api.js';
import { FaxJobOutSchema, jobOrNotFound } from './fax-job-out.js';
import { toFaxJobOut, type FaxService } from './fax-service.js';
import type { JobCancel } from './job-cancel.js';
import type { FaxJobStore } from './job-store.js';

const JobParams = z.object({ id: z.string().min(1).max(100) });

/** POST /fax/{id}/cancel and POST /fax/{id}/resend. */
export function registerCancelResendRoutes(api: HttpApi, deps: { store: FaxJobStore; service: FaxService; cancel: JobCancel }): void {
  api.route(
    {
      method: 'post',
      path: '/fax/:id/cancel',
      summary: 'Cancel a fax job: before it is sent it ends FAILED with error `canceled`; during a send its provider is asked to stop it',
      description: 'A job waiting (also a scheduled one, or one between redials) ends at once: 200, status FAILED, error `canceled`, event fax.canceled. A send under way: 202 when the provider plugin was asked to cancel (the job ends as the provider reports), 409 `fax_cancel_unsupported` when it cannot.',
      mcp: { name: 'cancel_fax', description: 'Cancel a fax job before it is sent (or ask its provider to stop a send under way)', aliases: { job_id: 'id' } },
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      params: JobParams,
      errors: ['fax_job_not_found', 'fax_already_final', 'fax_cancel_unsupported', 'plugin_not_available'],
      responses: {
        200: { description: 'Canceled before it was sent', schema: FaxJobOutSchema },
        202: { description: 'The provider was asked to stop the send under way', schema: FaxJobOutSchema },
      },
    },
    async ({ params, res }) => {
      const { row, outcome } = await deps.cancel.cancel(await jobOrNotFound(deps.store, params.id), actorOf(res));
      res.status(outcome === 'canceled' ? 200 : 202);
      return toFaxJobOut(row);
    },
  );

  api.route(
    {
      method: 'post',
      path: '/fax/:id/resend',
      summary: "Send a job's stored document again to the same number: a new job, linked both ways (`resend_of`, `resent_as`)",
      mcp: { name: 'resend_fax', description: 'Send a fax job again as a new job from its stored document', aliases: { job_id: 'id' } },
      tags: ['fax'],
      access: { scope: 'fax:send' },
      rateLimit: { bucket: 'fax' },
      params: JobParams,
      errors: ['fax_job_not_found', 'document_expired', 'document_deleted', 'fax_backend_unavailable', 'storage_unavailable', 'plugin_not_available'],
      responses: { 202: { description: 'The new job', schema: FaxJobOutSchema } },
    },
    async ({ params, res }) => {
      const row = await deps.service.resend(await jobOrNotFound(deps.store, params.id), actorOf(res));
      res.status(202);
      return toFaxJobOut(row);
    },
  );
}
