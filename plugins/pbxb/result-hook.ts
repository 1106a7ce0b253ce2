import { checkInternalSecret, parseWebhookJson, WebhookRejectedError, z, type FaxProvider } from 'switchboard/sdk';

/**
 * The body Faxbot's FreeSWITCH dialplan posts from its api_hangup_hook:
 * `{"job_id", "fax_status": "${fax_success}", "fax_result_text", "fax_result_code",
 * "fax_document_transferred_pages", "uuid"}`. fax_status is "1"/"0", or a word.
 */
const ResultHook = z.object({
  job_id: z.string().min(1).max(100),
  fax_status: z.union([z.string().max(20), z.number().int()]),
  fax_result_text: z.string().max(500).optional(),
  fax_result_code: z.union([z.string().max(20), z.number().int()]).optional(),
  fax_document_transferred_pages: z.union([z.number().int().min(0), z.string().regex(/^\d{0,6}$/)]).optional(),
  uuid: z.string().max(100).optional(),
});

const SUCCESS_WORDS = new Set(['1', 'success', 'ok', 'true']);
const FAILURE_WORDS = new Set(['0', 'failed', 'failure', 'fail', 'error', 'cancelled', 'canceled', 'false']);

/**
 * FreeSWITCH's result hook as a status callback: X-Internal-Secret checked against
 * internalSecret. The ESL event path stays; a result arriving both ways is applied once by the
 * host (a finished job never changes again).
 */
export function pbxbResultHook(settings: { internalSecret?: string | undefined }): Required<Pick<FaxProvider, 'verifyWebhook' | 'parseCallback'>> {
  return {
    verifyWebhook: (request) => checkInternalSecret(request, settings.internalSecret, 'internalSecret (PBX_INBOUND_SECRET)'),
    parseCallback(request) {
      const body = parseWebhookJson(request, ResultHook);
      const word = String(body.fax_status).trim().toLowerCase();
      const success = SUCCESS_WORDS.has(word);
      if (!success && !FAILURE_WORDS.has(word)) throw new WebhookRejectedError(422, 'malformed', 'fax_status: expected "1", "0" or a result word (success, failed, cancelled)');
      const pages = body.fax_document_transferred_pages === undefined || body.fax_document_transferred_pages === '' ? undefined : Number(body.fax_document_transferred_pages);
      const code = body.fax_result_code === undefined ? '' : String(body.fax_result_code);
      return {
        jobId: body.job_id,
        status: success ? 'SUCCESS' : 'FAILED',
        ...(pages !== undefined ? { pages } : {}),
        ...(success ? {} : { error: `${body.fax_result_text || 'fax failed'} (code ${code || '?'})` }),
        // The channel uuid is not our provider id (the bgapi Job-UUID): kept for diagnostics only.
        raw: `result hook ${word}${code ? ` code ${code}` : ''}${body.uuid ? ` uuid ${body.uuid}` : ''}`,
      };
    },
  };
}
