import type { FaxProvider, FaxProviderStatus, FaxSendRequest, FaxSendResult } from '../contracts/fax.js';
import { NotAcceptedError, RejectedError, UncertainOutcomeError } from '../errors.js';
import type { PluginLogger } from '../plugin.js';
import type { FaxResultTable } from './fax-result-table.js';
import { LineNoReplyError, LineNotConnectedError } from './reconnecting-line.js';

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
  /** The PBX session: a dial is only tried while it is ready. */
  line: { readonly ready: boolean };
  paper: 'letter' | 'a4';
  results: FaxResultTable;
  logger: PluginLogger;
  /**
   * Writes the dial command for this request and waits for the PBX's reply; returns the PBX's id
   * of the call. Link the id with `results.link` as soon as it is known, when events may name it
   * before the reply is read. Throw RejectedError when the PBX refuses; the line's
   * LineNotConnectedError and LineNoReplyError become NotAccepted and Uncertain.
   */
  dial(tiff: DialTiff, dest: string, request: FaxSendRequest): Promise<string>;
}

/** What a failed dial means for the host: nothing written is NotAccepted, no reply is Uncertain. */
function dialFailure(err: unknown, pbx: string): unknown {
  if (err instanceof LineNotConnectedError) return new NotAcceptedError(`not connected to ${pbx}; the fax was not dialled`, undefined, { cause: err });
  if (err instanceof LineNoReplyError) return new UncertainOutcomeError(`the dial command was sent to ${pbx} but not answered: ${err.message}`, { cause: err });
  return err;
}

/**
 * Render the job as a fax TIFF and dial it (SIP, PBX): checks the number and the session, renders,
 * registers the fax in the result table before the command is written (events may beat the
 * reply), and leaves the table without an entry when the dial failed.
 */
export async function dialOut(request: FaxSendRequest, options: DialOutOptions): Promise<FaxSendResult> {
  const dest = dialableNumber(request.to);
  if (!options.line.ready) throw new NotAcceptedError(`not connected to ${options.pbx}; the fax was not dialled`);
  const tiff = await request.document.renderTiff({ paper: options.paper }).catch((err: unknown) => {
    // Nothing was dialled; the host's retry policy decides whether rendering is tried again.
    throw new NotAcceptedError(`the fax TIFF could not be rendered: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
  });
  if (!tiff.localPath) throw new RejectedError(`the fax TIFF has no local file path: ${options.pbx} needs storage on a local directory`);
  const { results } = options;
  results.expect(request.jobId, tiff.pages);
  let providerSid: string;
  try {
    providerSid = await options.dial({ localPath: tiff.localPath, pages: tiff.pages }, dest, request);
  } catch (err) {
    results.forget(request.jobId);
    throw dialFailure(err, options.pbx);
  }
  results.link(request.jobId, providerSid);
  const state: FaxProviderStatus = results.accept(request.jobId);
  options.logger.info('fax dialling', { jobId: request.jobId, providerSid, pages: tiff.pages });
  return { ...state, providerSid, pages: state.pages ?? tiff.pages };
}

/**
 * The fax provider of a PBX plugin: sends by `dialOut`, answers status from the result table
 * (results arrive as events, so they are pushed).
 */
export function dialOutProvider(options: DialOutOptions): FaxProvider {
  return {
    pushesResults: true,
    send: (request) => dialOut(request, options),
    status: async (ref) => options.results.status(ref.jobId, ref.providerSid),
  };
}
