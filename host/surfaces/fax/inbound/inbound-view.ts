import { maskPhone } from '../../../platform/logging/text-masking.js';
import type { InboundRow } from './inbound-store.js';

/** An inbound fax as the API shows it: numbers in full for a caller holding inbound:read, else masked to the last four digits. */
export function inboundView(row: InboundRow, full: boolean) {
  return {
    id: row.id,
    provider: row.provider,
    provider_id: row.provider_id,
    from: full ? row.from_number : row.from_number && maskPhone(row.from_number),
    to: full ? row.to_number : row.to_number && maskPhone(row.to_number),
    status: row.status,
    pages: row.pages,
    source_type: row.source_type,
    size_bytes: row.size_bytes,
    received_at: row.received_at,
    mailbox: row.mailbox,
    ...(row.deleted_at ? { deleted_at: row.deleted_at } : {}),
  };
}
