/** What a plugin's health check answers. */
export interface HealthResult {
  ok: boolean;
  detail?: string;
  /** Extra facts shown in /health/ready and /plugins (versions, connection state, ...). */
  info?: Record<string, unknown>;
}
