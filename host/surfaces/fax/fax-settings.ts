import { z } from 'zod';
import { apiSecret, backendId, decimal, integer, flag } from '../../platform/config/model/field-kinds.js';
import type { ConfigRegistry } from '../../platform/config/registry.js';
import type { PlatformConfig } from '../../platform/config/model/index.js';
import { settingsSection, type SectionValues } from '../../platform/config/settings-section.js';

/** The cover page text when FAX_COVER_TEMPLATE is not set: a setting is one line, so a backslash-n breaks lines. */
export const DEFAULT_COVER_TEMPLATE = 'FAX\\n\\nTo: {to}\\nFrom: {from}\\nDate: {date}\\nPages: {pages} (including this cover page)\\nSubject: {subject}\\n\\n{message}';

/** Configuration keys of outbound and inbound fax, fax approvals and the fax alert conditions. */
export const FAX_SETTINGS = settingsSection('fax', {
  FAX_BACKEND: backendId('fax', 'Plugin id of the fax provider outbound faxes are sent with.', { startOnValidate: true }),
  FAX_DISABLED: flag().default(false).describe('Accept and store faxes without sending them: new jobs get status "disabled".'),
  FAX_DISPATCH_CONCURRENCY: integer(1, 256).default(4).describe('Fax jobs dispatched to the provider at the same time.'),
  FAX_GROUP_COMMIT_MS: integer(0, 1000)
    .default(2)
    .describe('Group commit of POST /fax: submits arriving within this many milliseconds of each other store their documents and job rows together (shared fsyncs, one insert); 0 stores each alone. A 202 still follows its document and row being durable.'),
  FAX_PAPER_SIZE: z
    .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['letter', 'a4']))
    .default('letter')
    .describe('Paper size documents are rendered to before sending.'),
  FAX_MAX_ATTEMPTS: integer(1, 100).default(5).describe('Send attempts per job while the provider certainly did not accept it (connection refused, 5xx, 429); then the job fails.'),
  FAX_RETRY_BASE_MS: integer(10).default(2000).describe('First retry delay after a refused send; doubles each attempt (a provider Retry-After wins).'),
  FAX_LEASE_MS: integer(500).default(60000).describe('Lease a dispatcher holds on a claimed job; renewed while it works, so a dead instance\'s jobs are taken over after it expires.'),
  FAX_DISPATCH_POLL_MS: integer(10).default(1000).describe('How often an idle dispatcher looks for due jobs (new jobs of this instance wake it at once).'),
  FAX_UNCERTAIN_RECHECK_MS: integer(10).default(15000).describe('Delay between provider lookups of a send whose outcome is unknown (timeout after sending).'),
  FAX_UNCERTAIN_GIVE_UP_MINUTES: integer(1).default(30).describe('Minutes after which a send the provider still has no record of is failed (never resent).'),
  FAX_STATUS_POLL_MS: integer(100).default(120000).describe('An accepted job not heard of for this long is polled at its provider (a lost callback cannot leave it waiting).'),
  FAX_RECONCILE_INTERVAL_MS: integer(50).default(30000).describe('How often the reconciler looks for jobs to poll.'),
  FAX_RESULT_TIMEOUT_MINUTES: integer(1).default(240).describe('An accepted job with no final result after this many minutes is failed.'),
  FAX_RETRY_MAX_ATTEMPTS: integer(1, 10)
    .default(1)
    .describe('Dial attempts per job when the provider reports the line busy, unanswered or failed (1: no redial). A submit may override it (`retry_max_attempts`).'),
  FAX_RETRY_DELAY_SECONDS: integer(0, 86400)
    .default(300)
    .describe('Seconds between a busy, unanswered or failed line and the next dial attempt. A submit may override it (`retry_delay_seconds`).'),
  FAX_REQUIRE_APPROVAL: flag().default(false).describe('POST /fax is refused (403 `approval_required`): a fax is sent only by approval, POST /fax/prepare then POST /fax/approvals/{id}/send, bound to that document and number.'),
  FAX_APPROVALS_PENDING_PER_KEY: integer(1, 10000)
    .default(20)
    .describe('Prepared faxes one API key may have waiting for sending at once (POST /fax/prepare, MCP prepare_fax); past it 429 `approvals_pending_limit` with Retry-After. The cluster as a whole holds at most 100.'),
  FAX_IDEMPOTENCY_TTL_HOURS: integer(1, 720).default(24).describe('Hours an Idempotency-Key of POST /fax is remembered (per API key); expired keys are swept every CLEANUP_INTERVAL_MINUTES.'),
  FAX_COVER_TEMPLATE: z
    .string()
    .min(1)
    .max(4000)
    .default(DEFAULT_COVER_TEMPLATE)
    .describe('Text of the optional cover page (rendered as plain text). Placeholders: {to}, {from}, {subject}, {message}, {date}, {pages} (total, cover included); "\\n" is a line break.'),
  FAX_DOCUMENT_THREADS: integer(1, 16).default(2).describe('Worker threads that inspect and convert uploaded documents (PDF checks, text and image to PDF, cover pages) off the event loop; more documents at once wait for a thread.'),
  FAX_DOCUMENT_BUDGET_MS: integer(100, 600_000).default(10_000).describe('Milliseconds inspecting or converting one document may take, plus FAX_DOCUMENT_BUDGET_MS_PER_MB for each MB of it; past that the work is stopped and the upload refused 422 `document_too_complex`.'),
  FAX_DOCUMENT_BUDGET_MS_PER_MB: integer(0, 600_000).default(2000).describe('Milliseconds added to FAX_DOCUMENT_BUDGET_MS for each MB of a document (a valid 10 MB text file takes about 9 s on an idle core).'),
  GS_TIMEOUT_SECONDS: integer(1).default(120).describe('Seconds ghostscript may take to render a fax TIFF.'),
  PDF_TOKEN_TTL_MINUTES: integer(1).default(60).describe('Minutes a tokenized PDF link for a provider stays valid.'),
  INBOUND_ENABLED: flag().default(false).describe('Accept and store inbound faxes.'),
  INBOUND_LIST_RPM: integer(1).default(30).describe('Requests per minute allowed on the inbound fax listing.'),
  INBOUND_GET_RPM: integer(1).default(60).describe('Requests per minute allowed on inbound fax downloads.'),
  INBOUND_RETENTION_DAYS: integer(0).default(30).describe('Days inbound faxes are kept; 0 keeps them forever.'),
  INBOUND_TOKEN_TTL_MINUTES: integer(1).default(60).describe('Minutes a download token of an inbound fax stays valid.'),
  INBOUND_DEFAULT_MAILBOX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'a mailbox name is lowercase letters, digits, ".", "_" and "-"')
    .default('default')
    .describe('Mailbox of an inbound fax whose called number matches no rule of /admin/mailboxes (it need not be created).'),
  INBOUND_MEDIA_TIMEOUT_SECONDS: integer(1, 600).default(30).describe('Seconds a download of an inbound fax document from the provider may take.'),
  ARTIFACT_TTL_DAYS: integer(0).default(0).describe('Days stored artifacts (PDF, TIFF) are kept; 0 turns expiry off.'),
  CLEANUP_INTERVAL_MINUTES: integer(1).default(1440).describe('Minutes between runs of the cleanup of expired artifacts and inbound faxes, and of spent or expired fax approvals.'),
  MCP_APPROVAL_TTL_SECONDS: integer(1, 86400).default(600).describe('Seconds a fax approval (POST /fax/prepare, MCP prepare_fax) stays usable by POST /fax/approvals/{id}/send and MCP send_fax.'),
  FAX_SCHEDULE_HORIZON_DAYS: integer(1, 365).default(30).describe('How far ahead `send_at` of POST /fax may lie; later is refused 400 `send_at_out_of_range`.'),
  FAX_MAX_FILES_PER_FAX: integer(1, 100).default(10).describe('`file` parts one POST /fax may carry (merged in order into one document); one more is refused 400 `too_many_files`.'),
  FAX_MAX_RECIPIENTS: integer(1, 1000).default(50).describe('`to` numbers one POST /fax may carry (several make a batch: one job per number sharing one stored document); one more is refused 400 `too_many_recipients`.'),
  FAX_MAX_TOTAL_UPLOAD_MB: integer(1).default(25).describe('Megabytes the files of one POST /fax with several `file` parts may take together (each file stays within MAX_FILE_SIZE_MB); past it 413 `upload_too_large`.'),
  WEBHOOK_SIGNING_SECRET: apiSecret('Secret the status events of a submit\'s `callback_url` are signed with (X-Switchboard-Signature, HMAC-SHA256); unset, a submit with `callback_url` is refused 400 `callback_url_unavailable`. Subscriptions sign with their own secret.'),
  WEBHOOK_TIMEOUT_SECONDS: integer(1, 120).default(10).describe('Seconds a receiver of status events may take to answer; no answer in time is retried like a 5xx.'),
  WEBHOOK_MAX_ATTEMPTS: integer(1, 50).default(8).describe('Attempts to deliver one status event (5xx, 408, 429, timeouts, refused connections are retried; any other 4xx fails it at once).'),
  WEBHOOK_RETRY_BASE_MS: integer(10, 3_600_000).default(10_000).describe('Wait before the first retry of a status event; doubles with each attempt, at most an hour.'),
  WEBHOOK_DELIVERY_POLL_MS: integer(10, 60_000).default(1000).describe('How often the delivery loop looks for due status events (a new event of this instance wakes it at once).'),
  WEBHOOK_SUBSCRIPTIONS_PER_KEY: integer(1, 1000).default(25).describe('Subscriptions one API key may hold (/webhooks/subscriptions); one more is refused 400 `webhook_subscription_limit`.'),
  INBOUND_SINK_TIMEOUT_SECONDS: integer(1, 600).default(60).describe('Seconds an inbound sink (the `email` plugin, say) may take to hand over one inbound fax; no answer in time is retried.'),
  INBOUND_SINK_MAX_ATTEMPTS: integer(1, 50).default(10).describe('Attempts to hand one inbound fax to one sink target of its mailbox before the delivery fails for good (GET /admin/inbound-deliveries lists it).'),
  INBOUND_SINK_RETRY_BASE_MS: integer(10, 3_600_000).default(30_000).describe('Wait before the first retry of an inbound sink delivery; doubles with each attempt, at most an hour.'),
  INBOUND_SINK_POLL_MS: integer(10, 60_000).default(1000).describe('How often the inbound sink delivery loop looks for due deliveries (a fax stored by this instance wakes it at once).'),
  INBOUND_SINK_LINK_TTL_SECONDS: integer(1, 2_592_000).default(86_400).describe('Seconds the PDF link in an inbound sink delivery (`document: link`, the default) stays valid; anyone holding the link reads the fax until then.'),
  ALERT_FAX_FAILURE_RATE: decimal(0, 1).default(0.5).describe('Fax failure-rate alert (critical): fires when the share of jobs finished FAILED in the window reaches this.'),
  ALERT_FAX_FAILURE_WINDOW_MINUTES: decimal(0.01).default(15).describe('Window of the fax failure-rate alert.'),
  ALERT_FAX_FAILURE_MIN_JOBS: integer(1).default(5).describe('Finished jobs the window needs before the fax failure-rate alert can fire.'),
  ALERT_FAX_BACKLOG_MINUTES: decimal(0.01).default(10).describe('Dispatch backlog alert (warning): fires when the oldest job waiting to be sent is older than this.'),
});

/** The configuration as the fax surface reads it: the platform's keys and its own. */
export type FaxConfig = ConfigRegistry<PlatformConfig & SectionValues<typeof FAX_SETTINGS>>;
