/**
 * The columns a durable delivery outbox row starts with, whichever surface's outbox it is (fax
 * status events and inbound sinks, workbench alerts): due now, not claimed, not yet tried.
 */
export function pendingDeliveryColumns(now: number) {
  return {
    state: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
    last_status: null,
    last_error: null,
    created_at: now,
    finished_at: null,
  };
}
