import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { envByFieldName, z } from 'switchboard/sdk';

test('every field of the settings is read from PREFIX_ and the field in upper snake case', () => {
  const settings = z.object({ baseUrl: z.url(), apiKey: z.string(), inboundHmacSecret: z.string(), timeoutMs: z.number(), host: z.string() });
  assert.equal(envByFieldName('PROVIDERX', settings), {
    baseUrl: 'PROVIDERX_BASE_URL',
    apiKey: 'PROVIDERX_API_KEY',
    inboundHmacSecret: 'PROVIDERX_INBOUND_HMAC_SECRET',
    timeoutMs: 'PROVIDERX_TIMEOUT_MS',
    host: 'PROVIDERX_HOST',
  });
});

test.run();
