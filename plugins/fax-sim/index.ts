import { definePlugin } from 'switchboard/sdk';
import { StatusNotifier } from './status-notifier.js';
import { installSecret } from './install-secret.js';
import { createFaxSim } from './provider.js';
import { faxSimEnv, faxSimSettings } from './settings.js';
import { SimulatedFaxes } from './simulated-faxes.js';
import { faxSimWebhooks } from './webhooks.js';

/**
 * A simulated fax provider for development: outcomes scripted by the destination's last four
 * digits, signed status callbacks to the gateway's own webhook route, and inbound faxes injected
 * with the per-install secret. Its faxes live in the plugin's store (the gateway's artifact
 * storage), so every instance of a cluster looks up the same faxes. Needs no settings.
 */
export default definePlugin({
  settings: faxSimSettings,
  env: faxSimEnv,
  async start(ctx) {
    const { secret, source } = await installSecret(ctx.settings.secret, ctx.dataDir);
    const callbacks = new StatusNotifier({ http: ctx.http, secret, logger: ctx.logger, signal: ctx.signal });
    const faxes = new SimulatedFaxes({ delayMs: ctx.settings.delayMs, store: ctx.storage, callbacks, logger: ctx.logger });
    return {
      providers: { fax: { ...createFaxSim(faxes, ctx.logger), ...faxSimWebhooks(secret) } },
      health: () => ({ ok: true, detail: 'simulated: no fax leaves this machine', info: { in_flight: faxes.inFlight, delay_ms: ctx.settings.delayMs, secret: source } }),
      stop: () => faxes.stop(),
    };
  },
});
