/** The alert-sink contract: deliver one alert to one receiver. */
export const ALERT_SINK_CONTRACT = '1.1.0';

export interface Alert {
  /** Stable across retries, so receivers can drop duplicates. */
  id: string;
  /** Unique per notice (firing, each repeat, resolved); the idempotency key (contract 1.1). */
  eventId?: string;
  type: string;
  /** What the alert is about: fax, judge, evaluation, plugins, test (contract 1.1). */
  category?: string;
  severity: string;
  status: 'firing' | 'resolved';
  title: string;
  startsAt: string;
  endsAt?: string;
  context?: Record<string, unknown>;
  /** The labels that make this alert instance (contract 1.1). */
  labels?: Record<string, string>;
}

export interface AlertDelivery {
  ok: boolean;
  /** A 4xx-like failure: retrying will not help. */
  permanent?: boolean;
  detail?: string;
}

export interface AlertSinkProvider {
  deliver(alert: Alert, signal?: AbortSignal): Promise<AlertDelivery>;
}
