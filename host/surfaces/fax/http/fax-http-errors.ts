import { StorageNotFoundError, WebhookRejectedError } from '../../../../core/sdk/index.js';
import type { DomainError } from '../../../platform/errors/domain-error.js';
import { httpErrorMapping } from '../../../platform/http/error-mapping.js';
import { faxErrors } from '../fax-errors.js';

/** The fax surface's codes as HTTP answers, and the storage's and the provider plugins' errors as its codes. */
export const FAX_HTTP_ERRORS = httpErrorMapping(
  faxErrors,
  {
    upload_not_stored: 500,
    multipart_required: 400,
    malformed_multipart: 400,
    invalid_document: 400,
    unsupported_document: 415,
    document_too_complex: 422,
    token_invalid: 403,
    fax_job_not_found: 404,
    document_expired: 404,
    fax_never_sent: 409,
    fax_not_yet_sent: 409,
    idempotency_key_reused: 422,
    approval_required: 403,
    approval_unknown: 404,
    approval_used: 409,
    approval_expired: 410,
    approval_mismatch: 422,
    approval_document_changed: 409,
    approvals_pending_limit: 429,
    fax_not_final: 409,
    fax_backend_unavailable: 503,
    storage_unavailable: 503,
    callback_job_mismatch: 409,
    webhook_rejected: { status: 401, statuses: [401, 400, 403, 404, 409, 413, 422, 503] },
    webhook_not_taken: 404,
    inbound_disabled: 404,
    inbound_fax_not_found: 404,
    media_host_not_configured: 503,
    media_download_failed: 502,
    mailbox_not_found: 404,
    mailbox_exists: 409,
    mailbox_number_taken: 409,
    too_many_files: 400,
    too_many_recipients: 400,
    upload_too_large: 413,
    fax_batch_not_found: 404,
    send_at_out_of_range: 400,
    fax_already_final: 409,
    fax_cancel_unsupported: 409,
    document_deleted: 410,
    fax_document_in_use: 409,
    webhook_url_refused: 400,
    callback_url_unavailable: 400,
    webhook_event_not_permitted: 403,
    webhook_subscription_limit: 400,
    webhook_subscription_not_found: 404,
    webhook_delivery_not_found: 404,
    webhook_delivery_pending: 409,
    inbound_delivery_not_found: 404,
    inbound_delivery_pending: 409,
  },
  translateFaxError,
);

function translateFaxError(err: unknown): DomainError | undefined {
  // A stored document the cleanup removed (or storage lost) is gone for good.
  if (err instanceof StorageNotFoundError) return faxErrors.error('document_expired');
  // The provider plugin chose the status its refusal answers with.
  if (err instanceof WebhookRejectedError) return faxErrors.errorWithHint('webhook_rejected', err.status, { reason: err.message });
  return undefined;
}
