import type { FaxStatus } from 'switchboard/sdk';

/** Provider B's status word as a job status, per the reference; anything else is still queued. */
export function mapProviderBStatus(raw: string | undefined): FaxStatus {
  switch ((raw ?? '').trim().toUpperCase()) {
    case 'IN_PROGRESS':
      return 'in_progress';
    case 'COMPLETED':
    case 'SUCCESS':
      return 'SUCCESS';
    case 'FAILURE':
    case 'FAILED':
    case 'ERROR':
      return 'FAILED';
    default:
      return 'queued';
  }
}
