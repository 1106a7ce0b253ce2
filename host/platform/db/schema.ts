import type { Generated } from 'kysely';

// Times are ISO 8601 text where clients see them, epoch milliseconds where the code compares.
// Each surface declares its own tables beside its code (host/surfaces/<surface>/<surface>-tables.ts).

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
  /** JSON of the key's limits (key-limits.ts); null: none. */
  limits: string | null;
}

export interface AuditEventTable {
  id: Generated<number>;
  ts: string;
  event: string;
  record: string;
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

/** The accounting record of one run (host/platform/llm/accounting). JSON columns are text. */
export interface RunAccountTable {
  run_id: string;
  corpus_id: string;
  /** What ran, as its owner names it (index, schema_proposal, search, answer). */
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

/** Corpora whose index was deleted through the API: current-state reads answer 404 until indexed again. */
export interface CorpusDeletionTable {
  corpus_id: string;
  deleted_at: string;
}

/** An installed plugin package (host/platform/plugins/artifacts/plugin-versions.ts); `id` is `<plugin>@<version>`. */
export interface PluginPackageTable {
  id: string;
  plugin_id: string;
  version: string;
  digest: string;
  integrity: string;
  signer: string | null;
  size: number;
  installed_by: string;
  installed_at: string;
}

/** The version of each packaged plugin that runs, and whether an operator pinned it. */
export interface PluginCurrentTable {
  plugin_id: string;
  version: string;
  pinned: number;
  updated_by: string;
  updated_at: string;
}

/** The platform's tables, as Kysely sees them; a surface adds its own with `db.withTables<...>()`. */
export type PlatformTables = {
  api_keys: ApiKeyTable;
  audit_events: AuditEventTable;
  cluster_leases: ClusterLeaseTable;
  shared_config: SharedConfigTable;
  run_accounts: RunAccountTable;
  run_requests: RunRequestTable;
  corpus_deletions: CorpusDeletionTable;
  plugin_packages: PluginPackageTable;
  plugin_current: PluginCurrentTable;
};
