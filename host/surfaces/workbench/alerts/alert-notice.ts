import { createHash } from 'node:crypto';

import type { FiringCondition } from '../../../platform/ports/alert-conditions.js';
export { SEVERITY_LABELS, type Severity, type FiringCondition } from '../../../platform/ports/alert-conditions.js';

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
