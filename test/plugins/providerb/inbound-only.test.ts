import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, faxDirectionsOf, RejectedError, type FaxWebhookRequest } from 'switchboard/sdk';
import { startPlugin } from 'switchboard/sdk/testing';
import providerb from '../../../plugins/providerb/index.js';
import { startProviderBFake, type ProviderBFake } from '../../fakes/providerb-fake.js';

/** Provider B's inbound notices need its inbound secrets and a media host, not its send credentials. */
const HMAC = 'pb-inbound-hmac-5d1c';
let fake: ProviderBFake;

function notice(body: object, secret = HMAC): FaxWebhookRequest {
  const raw = Buffer.from(JSON.stringify(body));
  return { kind: 'inbound', url: 'http://gw.test/providerb-inbound', rawBody: raw, contentType: 'application/json', headers: { 'x-providerb-signature': createHmac('sha256', secret).update(raw).digest('hex') }, query: {} };
}

test.before(async () => {
  fake = await startProviderBFake({ projectId: 'p', apiKey: 'k', apiSecret: 's' });
});
test.after(async () => {
  await fake.close();
});

test('an inbound secret and a media host without send credentials: inbound only, the provider never called', async () => {
  const plugin = await startPlugin(providerb, { pluginId: 'providerb', settings: { inboundHmacSecret: HMAC, mediaHosts: new URL(fake.url).host } });
  try {
    const fax = plugin.instance.providers.fax!;
    assert.equal(faxDirectionsOf(fax), ['inbound']);
    const body = { id: 'B-9', from: '+15550001', to: '+15550002', status: 'COMPLETED', file_url: `${fake.url}/media/B-9.pdf` };
    assert.ok(await fax.verifyWebhook!(notice(body)));
    assert.not.ok(await fax.verifyWebhook!(notice(body, 'wrong')));
    const parsed = await fax.parseInbound!(notice(body));
    assert.equal(parsed.document, { url: body.file_url, allowedHosts: [new URL(fake.url).host] });
    const sent = await fax.send({ jobId: 'j', to: '+15550002', publicBaseUrl: 'http://gw.test', document: undefined as never }).catch((e: unknown) => e);
    assert.instance(sent, RejectedError);
    assert.ok((sent as Error).message.includes('PROVIDERB_API_KEY'), (sent as Error).message);
    assert.ok((await plugin.instance.health!()).ok);
    assert.is(fake.sends.length + fake.listQueries.length, 0);
  } finally {
    await plugin.stop();
  }
});

test('with its send credentials too it serves both directions', async () => {
  const plugin = await startPlugin(providerb, { pluginId: 'providerb', settings: { baseUrl: fake.baseUrl, projectId: 'p', apiKey: 'k', apiSecret: 's', inboundHmacSecret: HMAC } });
  try {
    assert.equal(faxDirectionsOf(plugin.instance.providers.fax!), ['inbound', 'outbound']);
  } finally {
    await plugin.stop();
  }
});

test('neither complete: it waits for settings', async () => {
  const err = await startPlugin(providerb, { pluginId: 'providerb', settings: { mediaHosts: 'media.example' } }).catch((e: unknown) => e);
  assert.instance(err, ConfigError);
});

test.run();
