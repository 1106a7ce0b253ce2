import type { FaxLineFailure, FaxStatus } from 'switchboard/sdk';
import { statusWords } from 'switchboard/sdk/fax';

/** Provider A's status word as a job status; unknown words stay non-terminal (queued). */
export const mapProviderAStatus: (raw: string | undefined) => FaxStatus = statusWords({
  queued: 'queued',
  pendingbatch: 'queued',
  inprogress: 'in_progress',
  sending: 'in_progress',
  success: 'SUCCESS',
  failure: 'FAILED',
  cancelled: 'FAILED',
  error: 'FAILED',
  // Our faxes have one recipient, so a partial success means pages or a recipient were lost:
  // a human should look, so it is not reported as delivered.
  partialsuccess: 'FAILED',
});

/** The error text of a failed fax: the provider's message, else what its status word means. */
export function providerAError(raw: string | undefined, type?: string, message?: string): string | undefined {
  if (mapProviderAStatus(raw) !== 'FAILED') return undefined;
  if (message) return type ? `${type}: ${message}` : message;
  if (type) return type;
  if (raw === 'partialsuccess') return 'partial success';
  return raw;
}

/** Provider A reports busy, unanswered and dropped lines as the error type `lineError`: a redial may get through. */
export function providerALineFailure(raw: string | undefined, type?: string): FaxLineFailure | undefined {
  return mapProviderAStatus(raw) === 'FAILED' && type?.trim().toLowerCase() === 'lineerror' ? 'line_failure' : undefined;
}
