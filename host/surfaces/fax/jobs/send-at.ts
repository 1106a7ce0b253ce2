import { z } from 'zod';
import { faxErrors } from '../fax-errors.js';

/** A `send_at` as POST /fax and a send by approval take it: ISO 8601 with a zone, in the future, within the horizon. */
export function sendAtOf(value: string, horizonDays: number, now = Date.now()): Date {
  if (!z.iso.datetime({ offset: true }).safeParse(value).success) throw faxErrors.error('send_at_out_of_range', { reason: 'not an ISO 8601 time with a zone (2026-12-01T09:00:00Z)' });
  const at = Date.parse(value);
  if (at <= now) throw faxErrors.error('send_at_out_of_range', { reason: 'must be in the future' });
  if (at > now + horizonDays * 86_400_000) throw faxErrors.error('send_at_out_of_range', { reason: `more than FAX_SCHEDULE_HORIZON_DAYS (${horizonDays}) days ahead` });
  return new Date(at);
}
