import { definePlugin } from 'switchboard/sdk';
import { ProviderBClient } from './client.js';
import { createProviderB } from './provider.js';
import { providerBEnv, providerBSettings, requireConfig } from './settings.js';
import { providerBWebhooks } from './webhook.js';

/** Provider B: hosted fax over REST v3 (JSON or multipart, Basic auth); results by polling. */
export default definePlugin({
  settings: providerBSettings,
  env: providerBEnv,
  start(ctx) {
    const config = requireConfig(ctx.settings);
    const client = new ProviderBClient(ctx.http, config);
    return {
      providers: { fax: { ...createProviderB(client, config, ctx.logger), ...providerBWebhooks(config) } },
      health: () => client.ping(),
    };
  },
});
