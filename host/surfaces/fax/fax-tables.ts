// Times are ISO 8601 text where clients see them, epoch milliseconds where the code compares.

export interface FaxJobTable {
  id: string;
  to_number: string;
  status: string;
  error: string | null;
  pages: number | null;
  backend: string;
  provider_sid: string | null;
  pdf_key: string;
  source_type: string;
  size_bytes: number;
  created_at: string;
  updated_at: string;
  /** pending | sending | accepted | uncertain | done: where the send stands, for the dispatcher. */
  dispatch_state: string;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  sent_at: number | null;
  last_checked_at: number | null;
  finished_at: string | null;
  /** ISO time cleanup removed the job's artifacts (ARTIFACT_TTL_DAYS); null while they exist. */
  artifacts_removed_at: string | null;
  /** Per-job overrides of FAX_RETRY_MAX_ATTEMPTS and FAX_RETRY_DELAY_SECONDS; null follows the settings. */
  retry_max_attempts: number | null;
  retry_delay_seconds: number | null;
  /** SHA-256 (hex) of the stored PDF, the document sent (cover page included); null for jobs stored before it was kept. */
  document_sha256: string | null;
  /** 1 when a cover page was rendered and prepended to the document. */
  cover_page: number;
  /** The submit's `callback_url`: every status event of the job is POSTed there, signed with WEBHOOK_SIGNING_SECRET. */
  callback_url: string | null;
  /** 1 when the submitting key may read numbers (fax:read): its callbacks carry the number in full. */
  callback_full_numbers: number;
  /** The API key id (or caller kind) that submitted it: it sees the callback deliveries; null for jobs stored before. */
  submitted_by: string | null;
  /** ISO time a scheduled job is sent at (`send_at`); null: as soon as possible. */
  send_at: string | null;
  /** The job this one resends (POST /fax/{id}/resend); its resends point back here. */
  resend_of: string | null;
  /** 1 from the status change that makes an event happen once (queued, final) until it is in the outbox; a sweep publishes what a crash left. */
  event_pending: number;
  /** Tombstone of DELETE /fax/{id}/document: when and by whom the media was removed (artifacts_removed_at is set too). */
  document_deleted_at: string | null;
  document_deleted_by: string | null;
  /** The batch (several `to` of one POST /fax) the job belongs to; its jobs share the document under `fax/<batch_id>/`. */
  batch_id: string | null;
  /** The job's place among its batch's recipients, from 0. */
  batch_index: number | null;
}

/** An Idempotency-Key of POST /fax, per caller scope (API key id, or caller kind without one). */
export interface FaxIdempotencyKeyTable {
  scope: string;
  key: string;
  job_id: string;
  document_sha256: string;
  to_number: string;
  /** SHA-256 of the other submit fields (cover, retry policy), so any difference is noticed. */
  options_sha256: string;
  created_at: number;
  expires_at: number;
}

/** One send of a fax job, from the dispatcher's claim to the provider's final word. */
export interface FaxJobAttemptTable {
  job_id: string;
  attempt: number;
  started_at: string;
  ended_at: string | null;
  /** SUCCESS | FAILED | not_accepted; null while the attempt is under way. */
  outcome: string | null;
  /** busy | no_answer | line_failure: the provider's word that the line, not the fax, failed. */
  line_failure: string | null;
  error: string | null;
  provider_sid: string | null;
}

/**
 * A fax prepared for sending by approval (POST /fax/prepare), shared by every instance: the
 * document is in storage under `document_key`; POST /fax/approvals/{id}/send claims the row
 * (`ready` to `sending`, one UPDATE) and marks it `sent` with its job.
 */
export interface FaxApprovalTable {
  id: string;
  /** The API key id (or caller kind) that prepared it: nobody else may send it. */
  caller: string;
  to_number: string;
  document_sha256: string;
  document_key: string;
  size_bytes: number;
  pages: number;
  /** ready | sending | sent */
  state: string;
  /** While `sending`: until when the claim holds; an instance that died mid-send leaves it to lapse. */
  claimed_until: number | null;
  job_id: string | null;
  created_at: number;
  expires_at: number;
}

export interface HostKvTable {
  key: string;
  value: string;
}

export interface InboundFaxTable {
  id: string;
  provider: string;
  provider_id: string;
  from_number: string | null;
  to_number: string | null;
  status: string;
  pages: number | null;
  pdf_key: string | null;
  received_at: string;
  created_at: number;
  /** `pdf` or `tiff`: what the provider delivered (stored as PDF either way). */
  source_type: string | null;
  size_bytes: number | null;
  /** The mailbox its called number was routed to; null for faxes received before mailboxes existed. */
  mailbox: string | null;
  /** Tombstone of DELETE /inbound/{id}: the media is gone (pdf_key null), the record stays. */
  deleted_at: string | null;
  deleted_by: string | null;
  /** 1 from the insert until inbound.received is in the outbox; a sweep publishes what a crash left. */
  event_pending: number;
}

/** A named mailbox and the called-number rules (JSON `[{match, number}]`) routed to it. */
export interface MailboxTable {
  name: string;
  description: string | null;
  numbers: string;
  /** JSON: the mailbox's inbound sink targets ([{sink, recipients, document}]); null: none. */
  sinks: string | null;
  created_at: string;
  updated_at: string;
}

/** A key's subscription to status events (/webhooks/subscriptions): deliveries are signed with its secret. */
export interface FaxWebhookSubscriptionTable {
  id: string;
  /** The API key id (or caller kind) that made it: only it lists, deletes and sees its deliveries. */
  owner: string;
  /** JSON: the scopes of that key when it subscribed (whether numbers are shown in full). */
  scopes: string;
  url: string;
  /** JSON array of event types. */
  events: string;
  secret: string;
  description: string | null;
  created_at: string;
}

/**
 * The durable outbox of status events: one row per event and destination (`callback` or
 * `subscription:<id>`), written when the event fires, claimed with a lease, sent in event order
 * per job and destination, retried with backoff on 5xx and timeouts.
 */
export interface FaxWebhookDeliveryTable {
  id: string;
  /** `webhook` (status events) or `sink` (inbound faxes handed to inbound-sink plugins). */
  channel: string;
  /** The event's id, sent as X-Switchboard-Event-Id: the same on every retry and redelivery. */
  event_id: string;
  event_type: string;
  /** The job or inbound fax the event is about: deliveries of one subject go out in event order. */
  subject_id: string;
  destination: string;
  owner: string;
  url: string;
  /** The JSON body, as signed and sent. */
  body: string;
  event_at: number;
  /** pending | delivered | failed */
  state: string;
  attempts: number;
  next_attempt_at: number;
  lease_owner: string | null;
  lease_until: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

/** The fax surface's tables (fax-migrations.ts creates them). */
export type FaxTables = {
  fax_jobs: FaxJobTable;
  fax_idempotency_keys: FaxIdempotencyKeyTable;
  fax_job_attempts: FaxJobAttemptTable;
  fax_approvals: FaxApprovalTable;
  host_kv: HostKvTable;
  inbound_faxes: InboundFaxTable;
  mailboxes: MailboxTable;
  fax_webhook_subscriptions: FaxWebhookSubscriptionTable;
  fax_webhook_deliveries: FaxWebhookDeliveryTable;
};
