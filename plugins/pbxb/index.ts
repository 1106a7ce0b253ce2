import { definePlugin, RejectedError, UncertainOutcomeError } from 'switchboard/sdk';
import { PbxFax } from 'switchboard/sdk/fax';
import { EslClient } from './esl-client.js';
import type { EslEvent } from './esl-message.js';
import { callFailure, callLineFailure, originateCommand } from './originate.js';
import { pbxbResultHook } from './result-hook.js';
import { pbxbEnv, pbxbSettings } from './settings.js';

/** What the session subscribes to: originate verdicts, hangups and spandsp's fax results. */
const ESL_EVENTS = ['BACKGROUND_JOB', 'CHANNEL_HANGUP_COMPLETE', 'CUSTOM', 'spandsp::txfaxresult'];

/** A hangup before the originate's own verdict waits this long for BACKGROUND_JOB to name the cause. */
const HANGUP_GRACE_MS = 2000;

/** Fax over FreeSWITCH: `bgapi originate ... &txfax(<tiff>)` on the event socket; results are events. */
export default definePlugin({
  settings: pbxbSettings,
  env: pbxbEnv,
  async start(ctx) {
    const settings = ctx.settings;
    const client = new EslClient({ ...settings, events: ESL_EVENTS, logger: ctx.logger });
    /** Channel uuid of each answered fax call (from BACKGROUND_JOB `+OK <uuid>`). */
    const answered = new Map<string, string>();
    const graceTimers = new Set<NodeJS.Timeout>();
    const pbx = new PbxFax(ctx, {
      pbx: 'FreeSWITCH (ESL)',
      line: client,
      paper: settings.paper,
      resultTimeoutMs: settings.resultTimeoutMs,
      // The fax is in the table before the command is written: txfaxresult events carry our fax_job_id.
      async dial(tiff, dest, request) {
        const reply = await client.command(originateCommand(settings, { jobId: request.jobId, dest, tiffPath: tiff.localPath }));
        const text = reply.headers.get('Reply-Text') ?? '';
        if (!text.startsWith('+OK')) throw new RejectedError(`FreeSWITCH refused the originate: ${text || 'no reply text'}`);
        const jobUuid = reply.headers.get('Job-UUID') ?? /^\+OK Job-UUID: (\S+)/.exec(text)?.[1];
        // +OK means the call was queued: the fax may go out, so its fate is unknown, not refused.
        if (!jobUuid) throw new UncertainOutcomeError('FreeSWITCH accepted the originate without a Job-UUID');
        return jobUuid;
      },
      onStop() {
        for (const timer of graceTimers) clearTimeout(timer);
      },
    });
    const results = pbx.results;

    const jobOfChannel = (uuid: string | undefined) => {
      for (const [jobId, channel] of answered) if (channel === uuid) return jobId;
      return undefined;
    };

    const onEvent = (event: EslEvent) => {
      const h = (key: string) => event.headers.get(key);
      const name = h('Event-Name');
      if (name === 'BACKGROUND_JOB') {
        const jobId = results.jobIdOf(h('Job-UUID') ?? '');
        if (!jobId) return;
        const body = event.body.trim();
        if (body.startsWith('-ERR')) {
          const cause = body.slice(4).trim() || 'UNKNOWN';
          const lineFailure = callLineFailure(cause);
          results.finish(jobId, { status: 'FAILED', error: callFailure(cause), raw: `BACKGROUND_JOB ${body}`, ...(lineFailure ? { lineFailure } : {}) });
        } else if (body.startsWith('+OK')) {
          answered.set(jobId, body.slice(3).trim());
        }
        return;
      }
      if (name === 'CUSTOM' && h('Event-Subclass') === 'spandsp::txfaxresult') {
        const jobId = h('variable_fax_job_id') || jobOfChannel(h('Unique-ID'));
        if (!jobId) return;
        const pages = Number.parseInt(h('fax_document_transferred_pages') ?? '', 10);
        const code = h('fax_result_code') ?? '';
        const success = h('fax_success') === '1';
        answered.delete(jobId);
        results.finish(jobId, {
          status: success ? 'SUCCESS' : 'FAILED',
          ...(Number.isFinite(pages) ? { pages } : {}),
          ...(success ? {} : { error: `${h('fax_result_text') || 'fax failed'} (code ${code || '?'})` }),
          raw: `txfaxresult ${code}`,
        });
        return;
      }
      if (name === 'CHANNEL_HANGUP_COMPLETE') {
        const jobId = h('variable_fax_job_id') || jobOfChannel(h('Unique-ID'));
        // Only faxes this generation sent: another's may have had its result before we listened.
        if (!jobId || !results.isOpen(jobId)) return;
        const cause = h('Hangup-Cause') ?? 'UNKNOWN';
        const fail = () => results.finish(jobId, { status: 'FAILED', error: `hangup without fax result (${cause})`, raw: `CHANNEL_HANGUP_COMPLETE ${cause}` });
        if (answered.has(jobId)) {
          answered.delete(jobId);
          fail();
        } else {
          // Not answered: BACKGROUND_JOB -ERR <cause> normally follows and says why.
          const timer = setTimeout(() => {
            graceTimers.delete(timer);
            fail();
          }, HANGUP_GRACE_MS);
          graceTimers.add(timer);
        }
      }
    };
    client.onEvent(onEvent);
    // The PbxFax fails the faxes of a lost session; their channels are gone with it.
    client.onConnectionLost(() => answered.clear());
    await client.connect();

    return {
      providers: { fax: { ...pbx.provider, ...pbxbResultHook(settings) } },
      health() {
        const { connected, authenticated } = client.state;
        return { ok: connected && authenticated, info: { connected, authenticated } };
      },
      stop: () => pbx.stop(),
    };
  },
});
