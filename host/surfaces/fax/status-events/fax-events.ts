import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

/** The status events a key can receive: one per job status step, and one per inbound fax stored. */
export const FAX_EVENT_TYPES = ['fax.queued', 'fax.sending', 'fax.retrying', 'fax.delivered', 'fax.failed', 'fax.canceled', 'inbound.received'] as const;
export const FaxEventType = z.enum(FAX_EVENT_TYPES);
export type FaxEventType = z.infer<typeof FaxEventType>;

/** The scopes of which one lets a key receive an event (the same a key needs to read its subject). */
export function scopesForEvent(type: FaxEventType): readonly string[] {
  return type === 'inbound.received' ? ['inbound:list', 'inbound:read'] : ['fax:read', 'fax:send'];
}

/** The scope that shows an event's numbers in full. */
export function fullNumbersScope(type: FaxEventType): string {
  return type === 'inbound.received' ? 'inbound:read' : 'fax:read';
}

/** The body every delivery POSTs: `data` is the job (or inbound fax) as GET /fax/{id} (GET /inbound/{id}) shows it, numbers masked unless the key may read them. */
export const FaxEventSchema = z
  .object({
    id: z.string().describe('The event id, also in X-Switchboard-Event-Id: the same on every retry and redelivery (deduplicate on it)'),
    type: FaxEventType,
    created_at: z.string().describe('ISO 8601: when the event happened; events of one job reach one destination in this order'),
    data: z.record(z.string(), z.unknown()).describe('The job (fax.*) or the inbound fax (inbound.received)'),
  })
  .meta({ id: 'FaxEvent' });
export type FaxEvent = z.infer<typeof FaxEventSchema>;

let sequence = 0;

/** Event ids sort by the time they were made (ms, then a counter of this process), then a random tail. */
export function newEventId(now: number): string {
  sequence = (sequence + 1) % 1_679_616;
  return `evt_${now.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(6).toString('hex')}`;
}

/** The id of an event that happens once per subject: the same however often its status is reported. */
export function onceEventId(subjectId: string, type: FaxEventType): string {
  return `evt_${createHash('sha256').update(`${subjectId}\n${type}`).digest('hex').slice(0, 32)}`;
}
