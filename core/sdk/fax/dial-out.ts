import type { FaxProvider, FaxProviderStatus, FaxSendRequest, FaxSendResult } from '../contracts/fax.js';
import { NotAcceptedError, RejectedError, UncertainOutcomeError } from '../errors.js';
import type { PluginContext, PluginLogger } from '../plugin.js';
import { FaxResultTable } from './fax-result-table.js';
import { LineNoReplyError, LineNotConnectedError, type ReconnectingLine } from './reconnecting-line.js';

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

export interface PbxFaxOptions {
  /** Names the PBX in messages: `Asterisk (AMI)`. */
  pbx: string;
  /** The plugin's session to the PBX (a ReconnectingLine); closed when the generation stops. */
  line: Pick<ReconnectingLine<never, never>, 'ready' | 'onConnectionLost' | 'close'>;
  paper: 'letter' | 'a4';
  /** A dialled fax with no result within this long is FAILED. */
  resultTimeoutMs: number;
  /** See DialOutOptions.dial; `results` is this generation's table. */
  dial(tiff: DialTiff, dest: string, request: FaxSendRequest, results: FaxResultTable): Promise<string>;
  /** More cleanup when the generation stops (the plugin's own timers). */
  onStop?(): void;
}

/**
 * A PBX fax plugin's generation (AMI, ESL): its result table (results go to the host as
 * `fax.status` events), its provider (send by dialOut, status from the table, results pushed),
 * faxes failed when the session carrying their results is lost, and the stop that closes it all.
 * The plugin adds its protocol: the dial command and the events that end faxes.
 */
export class PbxFax {
  readonly results: FaxResultTable;
  readonly provider: FaxProvider;
  private stopped = false;

  constructor(
    private readonly ctx: Pick<PluginContext, 'events' | 'logger' | 'onDispose'>,
    private readonly options: PbxFaxOptions,
  ) {
    const results = (this.results = FaxResultTable.emitting(ctx, options.resultTimeoutMs));
    const dial: DialOutOptions = { ...options, logger: ctx.logger, results, dial: (tiff, dest, request) => options.dial(tiff, dest, request, results) };
    this.provider = {
      pushesResults: true,
      send: (request) => dialOut(request, dial),
      status: async (ref) => results.status(ref.jobId, ref.providerSid),
    };
    // Results travel on the session that was lost: nothing will report these faxes now.
    options.line.onConnectionLost((reason) => results.failPending(reason));
    ctx.onDispose(() => this.stop());
  }

  /** Stops timers and the session; faxes still out keep going and their results reach the next generation. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const pending = this.results.pendingCount();
    if (pending > 0) this.ctx.logger.info('stopping with faxes in progress; their results go to the next generation', { pending });
    this.results.dispose();
    this.options.onStop?.();
    await this.options.line.close();
  }
}
