/** What a plugin's health check answers. */
export interface HealthResult {
  ok: boolean;
  detail?: string;
  /**
   * The dependency is used only once an operator selects it: a failed check is reported (ok
   * stays false) but does not make the gateway not ready.
   */
  optional?: boolean;
  /**
   * What the check proved: `connection`, it reached (or tried to reach) the provider; `shape`,
   * only the settings were validated. Unset: `connection` when the plugin has a health check.
   */
  checked?: 'shape' | 'connection';
  /** Extra facts shown in /health/ready and /plugins (versions, connection state, ...). */
  info?: Record<string, unknown>;
}
