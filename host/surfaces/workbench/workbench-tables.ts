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

/** The workbench's tables (workbench-migrations.ts creates them). */
export type WorkbenchTables = {
  lab_runs: LabRunTable;
  alerts_active: AlertActiveTable;
  alert_deliveries: AlertDeliveryTable;
};
