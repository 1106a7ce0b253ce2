import { ConfigError, definePlugin, missingSettings, RejectedError, requireSettings } from 'switchboard/sdk';
import { inboundOnlyFax, PbxFax, type FaxResultTable } from 'switchboard/sdk/fax';
import { AmiClient } from './ami-client.js';
import type { AmiPacket } from './ami-packet.js';
import { originateAction, originateFailureReason, originateLineFailure } from './originate.js';
import { sipInboundHook } from './inbound-hook.js';
import { sipEnv, sipSettings } from './settings.js';

/**
 * Fax over Asterisk: the TIFF is dialled by an AMI Originate; results come back as AMI events.
 * Receiving needs only the inbound hook's settings: without the AMI login it serves inbound only.
 */
export default definePlugin({
  settings: sipSettings,
  env: sipEnv,
  async start(ctx) {
    const outboundGap = missingSettings(ctx.settings, ['username', 'password'], sipEnv);
    const inboundGap = missingSettings(ctx.settings, ['inboundSecret', 'spoolDir'], sipEnv);
    if (outboundGap.length) {
      if (inboundGap.length) throw new ConfigError(`sip: to send set ${outboundGap.join(' and ')}; to receive set ${inboundGap.join(' and ')}`, outboundGap[0]!.split(' ')[0]);
      const why = `${outboundGap.join(' and ')} not set`;
      return {
        providers: { fax: inboundOnlyFax(sipInboundHook(ctx.settings), why) },
        health: () => ({ ok: true, checked: 'shape', detail: `inbound only: sending needs ${outboundGap.join(' and ')}` }),
      };
    }
    const settings = requireSettings('sip', ctx.settings, ['username', 'password'], sipEnv);
    const client = new AmiClient({ ...settings, logger: ctx.logger });
    const pbx = new PbxFax(ctx, {
      pbx: 'Asterisk (AMI)',
      line: client,
      paper: settings.paper,
      resultTimeoutMs: settings.resultTimeoutMs,
      async dial(tiff, dest, request, results) {
        const sent = client.send(originateAction(settings, { jobId: request.jobId, dest, faxFile: tiff.localPath }));
        // Linked before the reply is read: an OriginateResponse may follow it in the same read.
        results.link(request.jobId, sent.actionId);
        const reply = await sent.response;
        if (reply.get('Response') !== 'Success') throw new RejectedError(`Asterisk refused the Originate: ${reply.get('Message') ?? 'no reason given'}`);
        return sent.actionId;
      },
    });
    client.onEvent((event) => onAmiEvent(event, pbx.results));
    await client.connect();

    return {
      providers: { fax: { ...pbx.provider, ...sipInboundHook(settings) } },
      health() {
        const { connected, loggedIn, amiVersion } = client.state;
        return { ok: connected && loggedIn, info: { connected, loggedIn, amiVersion } };
      },
      stop: () => pbx.stop(),
    };
  },
});

function onAmiEvent(event: AmiPacket, results: FaxResultTable): void {
  const name = event.get('Event');
  if (name === 'UserEvent' && event.get('UserEvent') === 'FaxResult') {
    const jobId = event.get('JobID');
    if (!jobId) return;
    const status = (event.get('Status') ?? '').toUpperCase();
    const pages = Number.parseInt(event.get('Pages') ?? '', 10);
    const error = event.get('Error');
    results.finish(jobId, {
      status: status === 'SUCCESS' ? 'SUCCESS' : 'FAILED',
      ...(Number.isFinite(pages) ? { pages } : {}),
      ...(status !== 'SUCCESS' ? { error: error || `fax failed (${status || 'no status'})` } : {}),
      raw: `FaxResult ${status}`,
    });
    return;
  }
  if (name === 'OriginateResponse' && event.get('Response') === 'Failure') {
    const jobId = results.jobIdOf(event.get('ActionID') ?? '');
    if (!jobId) return;
    const reason = event.get('Reason');
    const lineFailure = originateLineFailure(reason);
    results.finish(jobId, { status: 'FAILED', error: originateFailureReason(reason), raw: `OriginateResponse Failure reason ${reason ?? '?'}`, ...(lineFailure ? { lineFailure } : {}) });
  }
}
