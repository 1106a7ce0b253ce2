import type { FaxLineFailure } from 'switchboard/sdk';
import type { SipSettings } from './settings.js';

export function originateChannel(settings: Pick<SipSettings, 'trunk' | 'context'>, dest: string): string {
  const trunk = settings.trunk.trim();
  if (!trunk) return `Local/${dest}@${settings.context}`;
  return trunk.includes('{dest}') ? trunk.replaceAll('{dest}', dest) : `${trunk.replace(/\/$/, '')}/${dest}`;
}

/**
 * Asterisk splits a `Variable:` line at commas and honours backslash escapes, quotes and
 * parentheses (AST_STANDARD_APP_ARGS), so those characters are escaped in values.
 */
export function escapeVariableValue(value: string): string {
  return value.replace(/[\x00-\x1f\x7f]/g, ' ').replace(/[\\,"()]/g, (c) => `\\${c}`);
}

export interface OriginateJob {
  jobId: string;
  dest: string;
  /** The fax TIFF as a path on the Asterisk machine. */
  faxFile: string;
}

/** The fields of `Action: Originate` (the ActionID is added by the client). */
export function originateAction(settings: SipSettings, job: OriginateJob): Array<[string, string]> {
  const variables: Array<[string, string]> = [
    ['JOBID', job.jobId],
    ['DEST', job.dest],
    ['FAXFILE', job.faxFile],
    ['FAXHEADER', settings.header],
    ['LOCALSTATIONID', settings.stationId],
    ['T38', settings.t38 ? 'yes' : 'no'],
  ];
  const fields: Array<[string, string]> = [
    ['Action', 'Originate'],
    ['Channel', originateChannel(settings, job.dest)],
    ['Context', settings.context],
    ['Exten', settings.exten],
    ['Priority', String(settings.priority)],
    ['Timeout', String(settings.dialTimeoutMs)],
    ['Async', 'true'],
    ['Variable', variables.map(([k, v]) => `${k}=${escapeVariableValue(v)}`).join(',')],
  ];
  if (settings.callerId) fields.push(['CallerID', settings.callerId]);
  return fields;
}

/** Asterisk's OriginateResponse `Reason` as a line failure: busy (5), no answer (3), congestion (8) may clear on a redial. */
export function originateLineFailure(reason: string | undefined): FaxLineFailure | undefined {
  return reason === '5' ? 'busy' : reason === '3' ? 'no_answer' : reason === '8' ? 'line_failure' : undefined;
}

/** Asterisk's OriginateResponse `Reason` (the last control frame seen) as words for the job. */
export function originateFailureReason(reason: string | undefined): string {
  switch (reason) {
    case '5':
      return 'busy';
    case '3':
      return 'no answer';
    case '8':
      return 'congestion';
    default:
      return `call failed (reason ${reason ?? 'unknown'})`;
  }
}
