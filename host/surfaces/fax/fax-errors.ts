import { defineError, errorVocabulary } from '../../platform/errors/error-vocabulary.js';

/** The fax surface's error codes: uploads and documents, jobs, approvals, provider webhooks, inbound faxes. Their HTTP answers: http/fax-http-errors.ts. */
export const faxErrors = errorVocabulary('fax', {
  upload_not_stored: defineError({
    meaning: 'The upload could not be written to the server\'s disk (a disk error, not the caller\'s fault).',
    message: () => 'the upload could not be stored',
  }),
  multipart_required: defineError({
    meaning: 'POST /fax takes multipart/form-data only.',
    message: () => 'the request must be multipart/form-data with fields "to" and "file"',
  }),
  malformed_multipart: defineError<{ reason: string }>({
    meaning: 'The multipart body cannot be parsed, was cut off, or carries more than one file.',
    message: ({ reason }) => `malformed multipart request: ${reason}`,
  }),
  invalid_document: defineError<{ reason: string }>({
    meaning: 'The uploaded document is damaged or cannot be converted.',
    message: ({ reason }) => reason,
  }),
  unsupported_document: defineError<{ reason: string }>({
    meaning: 'The uploaded document is of a type the gateway does not fax (it takes PDF, text, PNG, JPEG and TIFF).',
    message: ({ reason }) => reason,
  }),
  token_invalid: defineError({
    meaning: 'The signed document link is invalid or has expired.',
    message: () => 'token invalid or expired',
  }),
  fax_job_not_found: defineError<{ id: string }>({
    meaning: 'No fax job has this id (or, for a provider callback, none sent through this provider).',
    message: ({ id }) => `fax job "${id}" not found`,
  }),
  document_expired: defineError({
    meaning: 'The document was removed by the artifact cleanup (ARTIFACT_TTL_DAYS, INBOUND_RETENTION_DAYS) or is gone from storage.',
    message: () => 'document expired',
  }),
  fax_never_sent: defineError({
    meaning: 'The job was stored while FAX_DISABLED was on and never sent, so there is no provider status to refresh.',
    message: () => 'the job was never sent (FAX_DISABLED)',
  }),
  fax_not_yet_sent: defineError({
    meaning: 'The job is still waiting to be dispatched.',
    message: () => 'the job has not been sent yet',
  }),
  idempotency_key_reused: defineError<{ differs: string }>({
    meaning: 'An Idempotency-Key of POST /fax came back with a different document, number or options than its first use (within FAX_IDEMPOTENCY_TTL_HOURS); nothing was sent.',
    message: ({ differs }) => `this Idempotency-Key was already used with a different ${differs}; use a new key for a new fax`,
  }),
  approval_required: defineError({
    meaning: 'FAX_REQUIRE_APPROVAL is on: POST /fax is refused; prepare the fax with POST /fax/prepare and send it with POST /fax/approvals/{id}/send.',
    message: () => 'sending needs an approval (FAX_REQUIRE_APPROVAL is on): POST /fax/prepare, then POST /fax/approvals/{id}/send',
  }),
  approval_unknown: defineError({
    meaning: 'No fax approval with this id was prepared by this API key (or it expired over an hour ago).',
    message: () => 'unknown approval id (prepare the fax with POST /fax/prepare or the MCP tool prepare_fax first)',
  }),
  approval_used: defineError({
    meaning: 'The fax approval was used already (or is being used by a send in progress): an approval sends once.',
    message: () => 'this approval was used already: prepare the fax again to send it again',
  }),
  approval_expired: defineError<{ ttl: string }>({
    meaning: 'The fax approval is older than MCP_APPROVAL_TTL_SECONDS.',
    message: ({ ttl }) => `this approval expired (${ttl}): prepare the fax again`,
  }),
  approval_mismatch: defineError<{ differs: string }>({
    meaning: 'The number or document given with a send by approval differs from the prepared one; nothing was sent.',
    message: ({ differs }) => `this approval is for another ${differs}`,
  }),
  approvals_pending_limit: defineError<{ limit: number }>({
    meaning: 'Too many prepared faxes wait for sending; send them or let them expire (MCP_APPROVAL_TTL_SECONDS).',
    message: ({ limit }) => `too many prepared faxes waiting (${limit}); send or let some expire first`,
  }),
  fax_not_final: defineError<{ status: string }>({
    meaning: 'The transmission report of a fax job exists only once the job is final (SUCCESS, FAILED or disabled).',
    message: ({ status }) => `the job is not final yet (status ${status}); the transmission report is available once it is`,
  }),
  fax_backend_unavailable: defineError<{ problem: string }>({
    meaning: 'The fax backend is not configured, not active, or serves inbound only; faxes are refused until it sends.',
    message: ({ problem }) => problem,
  }),
  storage_unavailable: defineError<{ storageId: string; reason: string }>({
    meaning: 'The storage backend (STORAGE_BACKEND) is not active.',
    message: ({ storageId, reason }) => `storage backend "${storageId}" (STORAGE_BACKEND) is not available: ${reason}`,
  }),
  callback_job_mismatch: defineError({
    meaning: 'A provider callback names another fax than the job its URL points at.',
    message: () => 'the callback names another fax than this job',
  }),
  webhook_rejected: defineError<{ reason: string }>({
    meaning: 'A provider webhook failed its signature or credential check, or its payload was refused; the provider plugin chooses the status.',
    message: ({ reason }) => reason,
  }),
  webhook_not_taken: defineError<{ pluginId: string; kind?: 'callbacks' | 'inbound faxes' }>({
    meaning: 'No fax plugin with this id takes webhooks of this kind.',
    message: ({ pluginId, kind }) => (kind ? `plugin "${pluginId}" takes no ${kind}` : `no fax plugin "${pluginId}" takes webhooks`),
  }),
  inbound_disabled: defineError({
    meaning: 'Inbound fax is off (INBOUND_ENABLED=false).',
    message: () => 'inbound is disabled',
  }),
  inbound_fax_not_found: defineError<{ id: string }>({
    meaning: 'No inbound fax has this id, or its document is gone.',
    message: ({ id }) => `inbound fax "${id}" not found`,
  }),
  media_host_not_configured: defineError({
    meaning: 'The provider sends documents by URL but no media host is allowed in its settings.',
    message: () => 'no media host is configured for this provider (see its mediaHosts setting)',
  }),
  media_download_failed: defineError<{ reason: string }>({
    meaning: "The provider's media host did not deliver the inbound document.",
    message: ({ reason }) => `file_url: ${reason}`,
  }),
  mailbox_not_found: defineError<{ name: string }>({
    meaning: 'No mailbox has this name.',
    message: ({ name }) => `no mailbox "${name}"`,
  }),
  mailbox_exists: defineError<{ name: string }>({
    meaning: 'A mailbox of this name exists already.',
    message: ({ name }) => `mailbox "${name}" exists already`,
  }),
  mailbox_number_taken: defineError<{ number: string; mailbox: string }>({
    meaning: 'A called-number rule of the request routes to another mailbox already; a number goes to one mailbox.',
    message: ({ number, mailbox }) => `${number} is routed to mailbox "${mailbox}" already`,
  }),
});
