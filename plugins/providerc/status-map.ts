import type { FaxLineFailure, FaxStatus } from 'switchboard/sdk';
import { statusWords } from 'switchboard/sdk/fax';

/** Provider C's status word as a job status; unknown words stay non-terminal (queued). */
export const mapProviderCStatus: (raw: string | undefined) => FaxStatus = statusWords({
  queued: 'queued',
  processing: 'in_progress',
  sending: 'in_progress',
  delivered: 'SUCCESS',
  'no-answer': 'FAILED',
  busy: 'FAILED',
  failed: 'FAILED',
  canceled: 'FAILED',
  // Inbound words, should one ever come back for a fax of ours.
  receiving: 'in_progress',
  received: 'SUCCESS',
});

/** The error text of a failed fax: the provider's message (and code), else its status word. */
export function providerCError(raw: string | undefined, code?: string, message?: string): string | undefined {
  if (mapProviderCStatus(raw) !== 'FAILED') return undefined;
  if (message) return code ? `${message} (${code})` : message;
  return code ? `${raw} (${code})` : raw;
}

/** Provider C's words for a line that failed (a redial may get through), as the SDK's line failure. */
export function providerCLineFailure(raw: string | undefined): FaxLineFailure | undefined {
  switch ((raw ?? '').trim().toLowerCase()) {
    case 'busy':
      return 'busy';
    case 'no-answer':
      return 'no_answer';
    default:
      return undefined;
  }
}
