/** The alert-sink contract: deliver one alert to one receiver. */
export const ALERT_SINK_CONTRACT = '1.0.0';

export interface Alert {
  /** Stable across retries, so receivers can drop duplicates. */
  id: string;
  type: string;
  severity: string;
  status: 'firing' | 'resolved';
  title: string;
  startsAt: string;
  endsAt?: string;
  context?: Record<string, unknown>;
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
