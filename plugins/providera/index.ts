import { definePlugin } from 'switchboard/sdk';
import { ProviderAClient } from './client.js';
import { createProviderA } from './provider.js';
import { providerAEnv, providerASettings, requireConfig } from './settings.js';
import { providerAWebhooks } from './webhook.js';

/** Provider A: hosted fax over REST v2 (form posts, Basic auth, HMAC-signed status callbacks). */
export default definePlugin({
  settings: providerASettings,
  env: providerAEnv,
  start(ctx) {
    const config = requireConfig(ctx.settings);
    const client = new ProviderAClient(ctx.http, config);
    return {
      providers: { fax: { ...createProviderA(client, config, ctx.logger), ...providerAWebhooks(config) } },
      health: () => client.ping(),
    };
  },
});
