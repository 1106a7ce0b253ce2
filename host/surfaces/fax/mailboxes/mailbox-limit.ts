import type { Response } from 'express';
import { keyLimitOf } from '../../../platform/auth/access-guard.js';

/** The key limit the fax surface declares: a key limited to mailboxes sees only their inbound faxes. */
export const MAILBOX_LIMIT = 'mailboxes';

export const FAX_KEY_LIMITS = {
  [MAILBOX_LIMIT]: 'Mailboxes (GET /admin/mailboxes) whose inbound faxes the key sees, on every route, MCP tool and inbound.received event; others answer 404 as if absent',
} as const;

/** The mailboxes the caller's key is limited to; undefined: every mailbox. */
export function callerMailboxes(res: Response): readonly string[] | undefined {
  return keyLimitOf(res, MAILBOX_LIMIT);
}

/** Whether a fax routed to `mailbox` is visible under `allowed` (faxes without a mailbox only to unlimited keys). */
export function inMailboxes(allowed: readonly string[] | undefined, mailbox: string | null): boolean {
  return !allowed || (mailbox !== null && allowed.includes(mailbox));
}
