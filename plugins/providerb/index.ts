import { definePlugin } from 'switchboard/sdk';
import { inboundOnlyFax } from 'switchboard/sdk/fax';
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
    const gap = outboundGap(ctx.settings);
    const inbound = gap.length ? inboundOnlyConfig(ctx.settings) : undefined;
    if (inbound) {
      return {
        providers: { fax: inboundOnlyFax(providerBWebhooks(inbound), `${gap.join(', ')} not set`) },
        health: () => ({ ok: true, checked: 'shape', detail: `inbound only: sending needs ${gap.join(', ')}` }),
      };
    }
    const config = requireConfig(ctx.settings);
    const client = new ProviderBClient(ctx.http, config);
    return {
      providers: { fax: { ...createProviderB(client, config, ctx.logger), ...providerBWebhooks(config) } },
      health: () => client.ping(),
    };
  },
});
