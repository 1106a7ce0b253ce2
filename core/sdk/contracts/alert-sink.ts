/**
 * The alert-sink contract, major 2: deliver one stored notice to one receiver. Major 1 (the
 * camelCase `Alert`) is still served beside it, through the adapter in `alert-sink-v1.ts`.
 */
export const ALERT_SINK_CONTRACT = '2.0.0';

/**
 * The notice: the JSON body a generic receiver gets, exactly as the host stores it in its
 * outbox. Sinks get it as it is stored; template sinks render from its fields.
 */
export interface AlertNotice {
  /** Stable per condition instance: the same alert keeps its id across repeats and restarts. */
  id: string;
  /** Unique per notice (firing, each repeat, resolved): receivers drop duplicates by it. */
  event_id: string;
  type: string;
  /** What the alert is about: fax, judge, evaluation, accounting, plugins, test. */
  category: string;
  severity: string;
  status: 'firing' | 'resolved';
  title: string;
  /** The labels that make this alert instance. */
  labels: Record<string, string>;
  starts_at: string;
  ends_at: string | null;
  sent_at: string;
  context: Record<string, unknown>;
}

export interface AlertDelivery {
  ok: boolean;
  /** A 4xx-like failure: retrying will not help. */
  permanent?: boolean;
  detail?: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
}

export interface AlertSinkProvider {
  /** Delivers the notice as stored; `signal` aborts when the host stops waiting (ALERT_WEBHOOK_TIMEOUT). */
  deliver(notice: AlertNotice, signal?: AbortSignal): Promise<AlertDelivery>;
}
