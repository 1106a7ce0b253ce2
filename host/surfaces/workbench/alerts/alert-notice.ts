import { createHash } from 'node:crypto';

/** The severity labels conditions emit; ALERT_NOTIFY_SEVERITIES must use these words. */
export const SEVERITY_LABELS = ['critical', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITY_LABELS)[number];

/** What a condition reports while it holds. The instance is (type, labels). */
export interface FiringCondition {
  type: string;
  category: 'fax' | 'judge' | 'evaluation' | 'accounting' | 'plugins' | 'test';
  severity: string;
  labels: Record<string, string>;
  title: string;
  context: Record<string, unknown>;
}

/** The JSON body every receiver gets (the generic webhook format). */
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

/** The stable id of a condition instance: its type and labels, order-independent. */
export function alertIdOf(type: string, labels: Record<string, string>): string {
  const canonical = JSON.stringify([type, Object.keys(labels).sort().map((k) => [k, labels[k]])]);
  return `${type}:${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}
