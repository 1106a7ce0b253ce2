import type { FaxProviderStatus, FaxSendRequest, FaxSendResult } from '../contracts/fax.js';
import { NotAcceptedError, RejectedError } from '../errors.js';
import type { PluginLogger } from '../plugin.js';
import type { FaxResultTable } from './fax-result-table.js';

/** Destinations a PBX dials: an optional + and 6 to 20 digits, nothing that could steer the call. */
export function dialableNumber(to: string): string {
  const dest = to.trim();
  if (!/^\+?\d{6,20}$/.test(dest)) throw new RejectedError('the destination must be an optional + and 6 to 20 digits');
  return dest;
}

/** The fax TIFF a PBX dials with: a file on this machine, and its page count. */
export interface DialTiff {
  localPath: string;
  pages: number;
}

export interface DialOutOptions {
  /** Names the PBX in messages: `Asterisk (AMI)`. */
  pbx: string;
  /** True while the PBX session can take a dial command. */
  connected(): boolean;
  paper: 'letter' | 'a4';
  results: FaxResultTable;
  logger: PluginLogger;
  /**
   * Writes the dial command and waits for the PBX's reply; returns the PBX's id of the call.
   * Link the id with `results.link` as soon as it is known, when events may name it before the
   * reply is read. Throw NotAccepted (nothing was written), Uncertain (written, no reply) or
   * Rejected (refused).
   */
  dial(tiff: DialTiff, dest: string): Promise<string>;
}

/**
 * Render the job as a fax TIFF and dial it (SIP, PBX): checks the number and the session, renders,
 * registers the fax in the result table before the command is written (events may beat the
 * reply), and leaves the table without an entry when the dial failed.
 */
export async function dialOut(request: FaxSendRequest, options: DialOutOptions): Promise<FaxSendResult> {
  const dest = dialableNumber(request.to);
  const notConnected = `not connected to ${options.pbx}; the fax was not dialled`;
  if (!options.connected()) throw new NotAcceptedError(notConnected);
  const tiff = await request.document.renderTiff({ paper: options.paper }).catch((err: unknown) => {
    // Nothing was dialled; the host's retry policy decides whether rendering is tried again.
    throw new NotAcceptedError(`the fax TIFF could not be rendered: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
  });
  if (!tiff.localPath) throw new RejectedError(`the fax TIFF has no local file path: ${options.pbx} needs storage on a local directory`);
  const { results } = options;
  results.expect(request.jobId, tiff.pages);
  let providerSid: string;
  try {
    providerSid = await options.dial({ localPath: tiff.localPath, pages: tiff.pages }, dest);
  } catch (err) {
    results.forget(request.jobId);
    throw err;
  }
  results.link(request.jobId, providerSid);
  const state: FaxProviderStatus = results.accept(request.jobId);
  options.logger.info('fax dialling', { jobId: request.jobId, providerSid, pages: tiff.pages });
  return { ...state, providerSid, pages: state.pages ?? tiff.pages };
}
