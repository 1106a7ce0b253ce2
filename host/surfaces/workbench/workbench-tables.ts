// Times are ISO 8601 text where clients see them, epoch milliseconds where the code compares.

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

/** The workbench's tables (workbench-migrations.ts creates them). */
export type WorkbenchTables = {
  lab_runs: LabRunTable;
  alerts_active: AlertActiveTable;
  alert_deliveries: AlertDeliveryTable;
  run_accounts: RunAccountTable;
  run_requests: RunRequestTable;
  corpus_deletions: CorpusDeletionTable;
};
