import { RejectedError, type FaxLineFailure } from 'switchboard/sdk';
import type { PbxbSettings } from './settings.js';

/**
 * A channel variable value inside `{...}`: FreeSWITCH splits the block at commas and the
 * command at spaces unless the value is single-quoted; quotes and braces cannot be escaped,
 * so they are dropped.
 */
export function variableValue(value: string): string {
  const clean = value.replace(/[\x00-\x1f\x7f'{}]/g, '');
  return /[\s,]/.test(clean) ? `'${clean}'` : clean;
}

/** Paths that FreeSWITCH's argument splitting would cut or misread. */
export function assertTiffPath(path: string): void {
  if (!path.startsWith('/') || /[\s'"{}()\\,]/.test(path)) {
    throw new RejectedError('the fax TIFF path holds characters FreeSWITCH cannot take (spaces, quotes, braces, parentheses, commas)');
  }
}

export interface OriginateJob {
  jobId: string;
  dest: string;
  tiffPath: string;
}

/** `bgapi originate {vars}sofia/gateway/<gateway>/<dest> &txfax(<tiff>)`, one line. */
export function originateCommand(settings: PbxbSettings, job: OriginateJob): string {
  assertTiffPath(job.tiffPath);
  const t38 = settings.t38Enable ? 'true' : 'false';
  const variables: Array<[string, string]> = [];
  if (settings.callerId) variables.push(['origination_caller_id_number', settings.callerId]);
  variables.push(['fax_job_id', job.jobId], ['fax_enable_t38', t38], ['fax_enable_t38_request', t38]);
  if (settings.stationId) variables.push(['fax_ident', settings.stationId]);
  if (settings.header) variables.push(['fax_header', settings.header]);
  variables.push(['originate_timeout', String(Math.ceil(settings.dialTimeoutMs / 1000))]);
  const block = variables.map(([k, v]) => `${k}=${variableValue(v)}`).join(',');
  return `bgapi originate {${block}}sofia/gateway/${settings.gateway}/${job.dest} &txfax(${job.tiffPath})`;
}

/** A hangup cause that a redial may clear: the far end busy or not answering, or a congested network. */
export function callLineFailure(cause: string): FaxLineFailure | undefined {
  switch (cause) {
    case 'USER_BUSY':
      return 'busy';
    case 'NO_ANSWER':
    case 'NO_USER_RESPONSE':
      return 'no_answer';
    case 'NORMAL_CIRCUIT_CONGESTION':
    case 'SWITCH_CONGESTION':
    case 'NORMAL_TEMPORARY_FAILURE':
      return 'line_failure';
    default:
      return undefined;
  }
}

/** A hangup cause (USER_BUSY, NO_ANSWER, ...) as words for the job. */
export function callFailure(cause: string): string {
  switch (cause) {
    case 'USER_BUSY':
      return 'busy (USER_BUSY)';
    case 'NO_ANSWER':
    case 'NO_USER_RESPONSE':
      return `no answer (${cause})`;
    default:
      return `call failed (${cause})`;
  }
}
