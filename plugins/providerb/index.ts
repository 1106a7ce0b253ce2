import { definePlugin } from 'switchboard/sdk';
import { startAsSettingsAllow } from 'switchboard/sdk/fax';
import { ProviderBClient } from './client.js';
import { createProviderB } from './provider.js';
import { inboundOnlyConfig, outboundGap, providerBEnv, providerBSettings, requireConfig } from './settings.js';
import { providerBWebhooks } from './webhook.js';

/**
 * Provider B: hosted fax over REST v3 (JSON or multipart, Basic auth); results by polling.
 * With its inbound settings and without its send credentials it serves inbound notices only.
 */
export default definePlugin({
  settings: providerBSettings,
  env: providerBEnv,
  start(ctx) {
    return startAsSettingsAllow(ctx.settings, { outboundGap, inboundOnlyConfig, inboundHooks: providerBWebhooks }, () => {
      const config = requireConfig(ctx.settings);
      const client = new ProviderBClient(ctx.http, config);
      return {
        providers: { fax: { ...createProviderB(client, config, ctx.logger), ...providerBWebhooks(config) } },
        health: () => client.ping(),
      };
    });
  },
});
