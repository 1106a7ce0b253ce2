import type { FaxStatus } from '../../../../core/sdk/index.js';

/**
 * Job status moves forward only: queued -> in_progress -> SUCCESS | FAILED, or straight from
 * queued to a final status. `disabled` (FAX_DISABLED) is final from the start. A late or
 * duplicate callback can refine a final job's page count, never its status.
 */
const RANK: Record<FaxStatus, number> = { queued: 0, in_progress: 1, SUCCESS: 2, FAILED: 2, disabled: 2 };

export const FINAL_STATUSES: readonly FaxStatus[] = ['SUCCESS', 'FAILED', 'disabled'];

export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** True when a job in `from` may move to `to`. */
export function canTransition(from: FaxStatus, to: FaxStatus): boolean {
  if (isFinal(from)) return false;
  if (to === 'disabled') return false;
  return RANK[to] > RANK[from];
}

/** Statuses a job in `to` may have come from: the SQL guard of a status update. */
export function predecessorsOf(to: FaxStatus): FaxStatus[] {
  return (Object.keys(RANK) as FaxStatus[]).filter((from) => canTransition(from, to));
}

/** Where the send stands, for the dispatcher and the reconciler. */
export type DispatchState = 'pending' | 'sending' | 'accepted' | 'uncertain' | 'done';

/** The error of a job a cancel ended before it was sent (POST /fax/{id}/cancel): FAILED, the spec's statuses stay. */
export const CANCELED_ERROR = 'canceled';
