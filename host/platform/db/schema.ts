import type { Generated } from 'kysely';

/** Times are ISO 8601 text where clients see them, epoch milliseconds where the code compares. */
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

/** Once-per-cluster work: who holds the lease of each named task, and until when (host/platform/db/cluster-leases.ts). */
export interface ClusterLeaseTable {
  name: string;
  owner: string;
  lease_until: number;
}

/** The configuration every instance applies (host/platform/config/cluster-config.ts): one row, its body the config file. */
export interface SharedConfigTable {
  id: number;
  version: number;
  body: string;
  updated_at: number;
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
}

export interface ApiKeyTable {
  key_id: string;
  name: string;
  owner: string | null;
  scopes: string;
  secret_hash: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  rate_limit_rpm: number | null;
}

export interface AuditEventTable {
  id: Generated<number>;
  ts: string;
  event: string;
  record: string;
}

export interface LabRunTable {
  id: string;
  state: string;
  request: string;
  result: string | null;
  error_outcome: string | null;
  error_detail: string | null;
  attempts: number;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface AlertActiveTable {
  id: string;
  type: string;
  severity: string;
  labels: string;
  title: string;
  context: string;
  status: string;
  fired_at: number;
  resolved_at: number | null;
  updated_at: number;
}

export interface AlertDeliveryTable {
  id: string;
  alert_id: string;
  event_key: string;
  target_id: string;
  notice: string;
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

/** One indexing run of a repository (host/surfaces/search/indexing/index-run-store.ts). */
export interface IndexRunTable {
  id: string;
  repo: string;
  /** `index` until the indexer knows: then `full` (empty index) or `incremental`. */
  kind: string;
  /** running | finished | failed | interrupted */
  state: string;
  enrich: number;
  files_seen: number;
  files_changed: number;
  files_removed: number;
  files_skipped: number;
  chunks: number;
  vectors: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Epoch ms of the supervisor's last sign of life; a stale running row was interrupted. */
  heartbeat_at: number;
}

export interface EvalRunTable {
  id: string;
  name: string;
  summary: string;
  baseline: number;
  created_at: number;
}

/** One golden-set evaluation run in the background (host/surfaces/search/evaluation/eval-job-store.ts). */
export interface EvaluationJobTable {
  id: string;
  /** running | finished | failed | interrupted */
  state: string;
  /** Questions selected for the run; `done` of them answered so far. */
  questions: number;
  done: number;
  name: string | null;
  baseline: number;
  /** JSON: the full report once finished. */
  report: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
  /** Epoch ms of the owner's last progress; a stale running row was interrupted. */
  heartbeat_at: number;
}

/** The accounting record of one run (host/surfaces/workbench/accounting). JSON columns are text. */
export interface RunAccountTable {
  run_id: string;
  corpus_id: string;
  /** index | schema_proposal | search | answer */
  run_kind: string;
  /** running | finished | failed | interrupted (the owner's state) */
  state: string;
  /** JSON array of declared lanes. */
  lanes: string;
  /** JSON object lane → why it is not applicable. */
  not_applicable: string;
  /** JSON array of coverage reasons (charges that are not attributed through the gateway). */
  coverage_reasons: string;
  /** JSON: the frozen pre-run estimate with the config it ran under. */
  estimate: string;
  /** 1 once the owner closed its census (it never reopens); a dead owner never closes it. */
  census_closed: number;
  /** JSON: the last final reconciliation (complete or incomplete); null before one. */
  costs: string | null;
  /** JSON: what the run produced (a schema proposal, or its failure). */
  result: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

/** One native dispatch of a run, admitted before it is sent. */
export interface RunRequestTable {
  id: string;
  run_id: string;
  lane: string;
  model: string;
  /** admitted → completed | failed | uncertain (forward only) */
  state: string;
  http_status: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  admitted_at: number;
  settled_at: number | null;
}

export interface CorpusDeletionTable {
  corpus_id: string;
  deleted_at: string;
}

export interface Database {
  run_accounts: RunAccountTable;
  run_requests: RunRequestTable;
  corpus_deletions: CorpusDeletionTable;
  index_runs: IndexRunTable;
  fax_jobs: FaxJobTable;
  fax_idempotency_keys: FaxIdempotencyKeyTable;
  fax_job_attempts: FaxJobAttemptTable;
  fax_approvals: FaxApprovalTable;
  host_kv: HostKvTable;
  inbound_faxes: InboundFaxTable;
  api_keys: ApiKeyTable;
  audit_events: AuditEventTable;
  lab_runs: LabRunTable;
  alerts_active: AlertActiveTable;
  alert_deliveries: AlertDeliveryTable;
  eval_runs: EvalRunTable;
  evaluation_jobs: EvaluationJobTable;
  cluster_leases: ClusterLeaseTable;
  shared_config: SharedConfigTable;
}
