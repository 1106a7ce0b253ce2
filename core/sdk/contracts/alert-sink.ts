/** The alert-sink contract: deliver one alert to one receiver. */
export const ALERT_SINK_CONTRACT = '1.2.0';

/**
 * The notice: the JSON body a generic receiver gets, exactly as the host stores it in its
 * outbox (contract 1.2). Template sinks render from it.
 */
export interface AlertNotice {
  /** Stable per condition instance: the same alert keeps its id across repeats and restarts. */
  id: string;
  /** Unique per notice (firing, each repeat, resolved): receivers drop duplicates by it. */
  event_id: string;
  type: string;
  category: string;
  severity: string;
  status: 'firing' | 'resolved';
  title: string;
  labels: Record<string, string>;
  starts_at: string;
  ends_at: string | null;
  sent_at: string;
  context: Record<string, unknown>;
}

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
  /** The stored notice this alert was read from, when the host delivers from its outbox (contract 1.2). */
  notice?: AlertNotice;
}

export interface AlertDelivery {
  ok: boolean;
  /** A 4xx-like failure: retrying will not help. */
  permanent?: boolean;
  detail?: string;
  /** The receiver's HTTP status, when it answered (contract 1.2). */
  status?: number;
}

export interface AlertSinkProvider {
  deliver(alert: Alert, signal?: AbortSignal): Promise<AlertDelivery>;
}

/** The contract's view of a stored notice; the notice rides along, so nothing is lost. */
export function alertOfNotice(notice: AlertNotice): Alert {
  return {
    id: notice.id,
    eventId: notice.event_id,
    type: notice.type,
    category: notice.category,
    severity: notice.severity,
    status: notice.status,
    title: notice.title,
    labels: notice.labels,
    startsAt: notice.starts_at,
    ...(notice.ends_at ? { endsAt: notice.ends_at } : {}),
    context: notice.context,
    notice,
  };
}

/** The notice of an alert handed in without one (a caller of the contract that is not the host). */
export function noticeOfAlert(alert: Alert, now = new Date()): AlertNotice {
  return (
    alert.notice ?? {
      id: alert.id,
      event_id: alert.eventId ?? alert.id,
      type: alert.type,
      category: alert.category ?? '',
      severity: alert.severity,
      status: alert.status,
      title: alert.title,
      labels: alert.labels ?? {},
      starts_at: alert.startsAt,
      ends_at: alert.endsAt ?? null,
      sent_at: now.toISOString(),
      context: alert.context ?? {},
    }
  );
}
