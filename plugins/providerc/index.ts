import { definePlugin } from 'switchboard/sdk';
import { ProviderCClient } from './client.js';
import { createProviderC } from './provider.js';
import { providerCEnv, providerCSettings, requireConfig } from './settings.js';
import { providerCWebhooks } from './webhook.js';

/** Provider C: hosted fax over a Twilio-compatible LaML REST API, with signed status callbacks. */
export default definePlugin({
  settings: providerCSettings,
  env: providerCEnv,
  start(ctx) {
    const config = requireConfig(ctx.settings);
    const client = new ProviderCClient(ctx.http, config);
    return {
      providers: { fax: { ...createProviderC(client, config, ctx.logger), ...providerCWebhooks(config) } },
      health: () => client.ping(),
    };
  },
});
