import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, faxDirectionsOf, RejectedError, type FaxWebhookRequest } from 'switchboard/sdk';
import { startPlugin } from 'switchboard/sdk/testing';
import providera from '../../../plugins/providera/index.js';
import { startProviderAFake, type ProviderAFake } from '../../fakes/providera-fake.js';

/** Provider A's inbound notices need its signing secret (apiSecret) and a media host, not its API key. */
const SECRET = 'pa-signing-secret-2e7b';
let fake: ProviderAFake;

function notice(body: object, secret = SECRET): FaxWebhookRequest {
  const raw = Buffer.from(JSON.stringify(body));
  return { kind: 'inbound', url: 'http://gw.test/providera-inbound', rawBody: raw, contentType: 'application/json', headers: { 'x-providera-signature': createHmac('sha256', secret).update(raw).digest('hex') }, query: {} };
}

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'k', apiSecret: SECRET });
});
test.after(async () => {
  await fake.close();
});

test('the signing secret and a media host without the API key: inbound only, the provider never called', async () => {
  const plugin = await startPlugin(providera, { pluginId: 'providera', settings: { apiSecret: SECRET, baseUrl: fake.baseUrl } });
  try {
    const fax = plugin.instance.providers.fax!;
    assert.equal(faxDirectionsOf(fax), ['inbound']);
    const body = { fax: { id: 77, from: '+15550001', to: '+15550002', status: 'success', file_url: `${fake.url}/media/77.pdf` } };
    assert.ok(await fax.verifyWebhook!(notice(body)));
    assert.not.ok(await fax.verifyWebhook!(notice(body, 'wrong')));
    assert.is((await fax.parseInbound!(notice(body))).providerId, '77');
    assert.is(fax.parseCallback, undefined);
    const sent = await fax.send({ jobId: 'j', to: '+15550002', publicBaseUrl: 'http://gw.test', document: undefined as never }).catch((e: unknown) => e);
    assert.instance(sent, RejectedError);
    assert.ok((sent as Error).message.includes('PROVIDERA_API_KEY'), (sent as Error).message);
    assert.is(fake.sends.length, 0);
  } finally {
    await plugin.stop();
  }
});

test('with its API key too it serves both directions', async () => {
  const plugin = await startPlugin(providera, { pluginId: 'providera', settings: { apiSecret: SECRET, apiKey: 'k', baseUrl: fake.baseUrl } });
  try {
    assert.equal(faxDirectionsOf(plugin.instance.providers.fax!), ['inbound', 'outbound']);
  } finally {
    await plugin.stop();
  }
});

test('without the signing secret it waits for settings', async () => {
  const err = await startPlugin(providera, { pluginId: 'providera', settings: { apiKey: 'k', baseUrl: fake.baseUrl } }).catch((e: unknown) => e);
  assert.instance(err, ConfigError);
});

test.run();
