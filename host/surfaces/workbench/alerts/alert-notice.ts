import { createHash } from 'node:crypto';

import type { FiringCondition } from '../../../platform/ports/alert-conditions.js';
export { SEVERITY_LABELS, type Severity, type FiringCondition } from '../../../platform/ports/alert-conditions.js';

/** The notice: the JSON body a generic receiver gets, stored as it is sent (defined by the alert-sink contract). */
export type { AlertNotice } from '../../../../core/sdk/contracts/alert-sink.js';

/** The stable id of a condition instance: its type and labels, order-independent. */
export function alertIdOf(type: string, labels: Record<string, string>): string {
  const canonical = JSON.stringify([type, Object.keys(labels).sort().map((k) => [k, labels[k]])]);
  return `${type}:${createHash('sha256').update(canonical).digest('hex').slice(0, 16)}`;
}
