import type { FaxStatus } from 'switchboard/sdk';
import { statusWords } from 'switchboard/sdk/fax';

/** Provider B's status word as a job status, per the reference; anything else is still queued. */
export const mapProviderBStatus: (raw: string | undefined) => FaxStatus = statusWords({
  in_progress: 'in_progress',
  completed: 'SUCCESS',
  success: 'SUCCESS',
  failure: 'FAILED',
  failed: 'FAILED',
  error: 'FAILED',
});
