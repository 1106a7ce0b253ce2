import { definePlugin, RejectedError } from 'switchboard/sdk';
import { dialOutProvider, FaxResultTable } from 'switchboard/sdk/fax';
import { AmiClient } from './ami-client.js';
import type { AmiPacket } from './ami-packet.js';
import { originateAction, originateFailureReason } from './originate.js';
import { sipEnv, sipSettings } from './settings.js';

/** Fax over Asterisk: the TIFF is dialled by an AMI Originate; results come back as AMI events. */
export default definePlugin({
  settings: sipSettings,
  env: sipEnv,
  async start(ctx) {
    const settings = ctx.settings;
    const client = new AmiClient({
      host: settings.host,
      port: settings.port,
      username: settings.username,
      secret: settings.password,
      connectTimeoutMs: settings.connectTimeoutMs,
      actionTimeoutMs: settings.actionTimeoutMs,
      pingIntervalMs: settings.pingIntervalMs,
      reconnect: { initialDelayMs: settings.reconnectInitialMs, maxDelayMs: settings.reconnectMaxMs },
      logger: ctx.logger,
    });
    const results = FaxResultTable.emitting(ctx, settings.resultTimeoutMs);
    ctx.onDispose(async () => {
      results.dispose();
      await client.close();
    });

    client.onEvent((event) => onAmiEvent(event, results));
    // Results travel on the session that was lost: nothing will report these faxes now.
    client.onConnectionLost(() => results.failPending('AMI connection lost'));
    await client.connect();

    const fax = dialOutProvider({
      pbx: 'Asterisk (AMI)',
      line: client,
      paper: settings.paper,
      results,
      logger: ctx.logger,
      async dial(tiff, dest, request) {
        const sent = client.send(originateAction(settings, { jobId: request.jobId, dest, faxFile: tiff.localPath }));
        // Linked before the reply is read: an OriginateResponse may follow it in the same read.
        results.link(request.jobId, sent.actionId);
        const reply = await sent.response;
        if (reply.get('Response') !== 'Success') throw new RejectedError(`Asterisk refused the Originate: ${reply.get('Message') ?? 'no reason given'}`);
        return sent.actionId;
      },
    });

    return {
      providers: { fax },
      health() {
        const { connected, loggedIn, amiVersion } = client.state;
        return { ok: connected && loggedIn, info: { connected, loggedIn, amiVersion } };
      },
      async stop() {
        if (results.pendingCount() > 0) ctx.logger.info('stopping with faxes in progress; their results go to the next generation', { pending: results.pendingCount() });
        results.dispose();
        await client.close();
      },
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
    results.finish(jobId, { status: 'FAILED', error: originateFailureReason(reason), raw: `OriginateResponse Failure reason ${reason ?? '?'}` });
  }
}
