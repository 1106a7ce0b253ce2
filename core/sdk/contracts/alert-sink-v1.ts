import type { AlertDelivery, AlertNotice, AlertSinkProvider } from './alert-sink.js';

/** The last version of major 1 of the alert-sink contract, served through `alertSinkOfV1`. */
export const ALERT_SINK_CONTRACT_V1 = '1.2.0';

/** What a sink declared `alert-sink@^1` is handed: the notice in camelCase, the notice itself alongside (1.2). */
export interface AlertV1 {
  id: string;
  eventId?: string;
  type: string;
  category?: string;
  severity: string;
  status: 'firing' | 'resolved';
  title: string;
  startsAt: string;
  endsAt?: string;
  context?: Record<string, unknown>;
  labels?: Record<string, string>;
  notice?: AlertNotice;
}

/** The notice's fields major 1 spelled in camelCase: templates of a manifest declared `alert-sink@^1` may still name them. */
export const ALERT_V1_FIELD_NAMES = { eventId: 'event_id', startsAt: 'starts_at', endsAt: 'ends_at', sentAt: 'sent_at' } as const satisfies Record<string, keyof AlertNotice>;

export interface AlertSinkProviderV1 {
  deliver(alert: AlertV1, signal?: AbortSignal): Promise<AlertDelivery>;
}

/**
 * The adapter of major 1: a sink written for `alert-sink@^1` served as a major-2 provider. The
 * one place a notice is turned into the v1 shape; the plugin runner applies it.
 */
export function alertSinkOfV1(sink: AlertSinkProviderV1): AlertSinkProvider {
  return {
    deliver(notice, signal) {
      const alert: AlertV1 = {
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
      return sink.deliver(alert, signal);
    },
  };
}
