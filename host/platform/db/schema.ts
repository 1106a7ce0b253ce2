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

/** The platform's tables, as Kysely sees them; a surface adds its own with `db.withTables<...>()`. */
export type PlatformTables = {
  api_keys: ApiKeyTable;
  audit_events: AuditEventTable;
  cluster_leases: ClusterLeaseTable;
  shared_config: SharedConfigTable;
};
