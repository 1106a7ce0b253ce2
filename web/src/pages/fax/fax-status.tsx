import { Status } from '../../components/status.js';

/** The statuses after which a job changes no more. */
export const FINAL = new Set(['SUCCESS', 'FAILED', 'disabled']);

export function FaxStatus({ status }: { status: string }) {
  return <Status ok={status === 'SUCCESS' ? true : status === 'FAILED' ? false : null}>{status}</Status>;
}
