import { definePlugin } from 'switchboard/sdk';
import { startAsSettingsAllow } from 'switchboard/sdk/fax';
import { ProviderAClient } from './client.js';
import { createProviderA } from './provider.js';
import { inboundOnlyConfig, outboundGap, providerAEnv, providerASettings, requireConfig } from './settings.js';
import { providerAInbound, providerAWebhooks } from './webhook.js';

/**
 * Provider A: hosted fax over REST v2 (form posts, Basic auth, HMAC-signed status callbacks).
 * With its signing secret and a media host but not all of its send settings it serves inbound notices only.
 */
export default definePlugin({
  settings: providerASettings,
  env: providerAEnv,
  start(ctx) {
    return startAsSettingsAllow(ctx.settings, { outboundGap, inboundOnlyConfig, inboundHooks: providerAInbound }, () => {
      const config = requireConfig(ctx.settings);
      const client = new ProviderAClient(ctx.http, config);
      return {
        providers: { fax: { ...createProviderA(client, config, ctx.logger), ...providerAWebhooks(config) } },
        health: () => client.ping(),
      };
    });
  },
});
