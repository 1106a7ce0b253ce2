import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { OutboundGuard } from '../../../../core/kernel/egress.js';
import { ConfigRegistry } from '../../../../host/platform/config/registry.js';
import { LlmGatewayClient } from '../../../../host/platform/llm/gateway-client.js';
import { llmGatewayEndpoint } from '../../../../host/platform/llm/gateway-endpoint.js';
import { LedgerReadError, readSpendLedger } from '../../../../host/platform/llm/accounting/spend-ledger-client.js';
import { startLlmGatewayFake, type LlmGatewayFake } from '../../../fakes/llm-gateway-fake.js';
import { gatewayConfigModel } from '../../../support/gateway-config.js';

let fake: LlmGatewayFake;
const dirs: string[] = [];
test.before(async () => {
  fake = await startLlmGatewayFake();
});
test.after(async () => {
  await fake.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
test.before.each(() => {
  fake.requests.length = 0;
});

/** A registry with `env` as the environment and `file` as the JSON config file (what the API writes). */
function registry(env: Record<string, string>, file: Record<string, unknown> = {}): ConfigRegistry {
  const dir = mkdtempSync(path.join(tmpdir(), 'llm-endpoint-'));
  dirs.push(dir);
  const configFile = path.join(dir, 'switchboard.config.json');
  writeFileSync(configFile, JSON.stringify(file));
  return new ConfigRegistry({ model: gatewayConfigModel(), env, envFile: path.join(dir, 'no.env'), configFile });
}

const chat = (client: LlmGatewayClient) => client.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).then(
  () => undefined,
  (e: unknown) => e as Error,
);

test('the environment key goes to an LLM_GATEWAY_URL from the environment', async () => {
  const endpoint = llmGatewayEndpoint(registry({ LLM_GATEWAY_URL: fake.url, LLM_GATEWAY_API_KEY: 'env-key' }));
  assert.equal(endpoint, { baseUrl: fake.url, apiKey: 'env-key', runtimeUrl: false });
  assert.is(await chat(new LlmGatewayClient({ ...endpoint, attempts: 1 })), undefined);
  assert.is(fake.chats()[0]!.headers.authorization, 'Bearer env-key');
});

test('an LLM_GATEWAY_URL written at run time never gets the environment key: every call is refused with the reason, nothing is sent', async () => {
  const config = registry({ LLM_GATEWAY_API_KEY: 'env-key' }, { LLM_GATEWAY_URL: fake.url });
  const endpoint = llmGatewayEndpoint(config);
  assert.is(endpoint.apiKey, undefined);
  assert.match(endpoint.withheld ?? '', /LLM_GATEWAY_API_KEY comes from the environment.*LLM_GATEWAY_URL was set at run time/);
  const guard = new OutboundGuard(() => ['127.0.0.1']);
  const err = await chat(new LlmGatewayClient({ ...endpoint, guard, attempts: 1 }));
  assert.match(err?.message ?? '', /LLM_GATEWAY_API_KEY comes from the environment/);
  const embed = await new LlmGatewayClient({ ...endpoint, guard }).embed('e', ['x']).then(() => undefined, (e: Error) => e);
  assert.match(embed?.message ?? '', /LLM_GATEWAY_API_KEY/);
  const ledger = await readSpendLedger({ ...endpoint, guard, pageSize: 10, maxPages: 1, maxPageBytes: 1e6, timeoutMs: 1000 }, 's', new Date(), new Date()).then(() => undefined, (e: Error) => e);
  assert.instance(ledger, LedgerReadError);
  assert.is(fake.requests.length, 0);
  await guard.close();
});

test('an LLM_GATEWAY_URL written at run time reaches a private address only when OUTBOUND_ALLOW_HOSTS names it', async () => {
  const endpoint = llmGatewayEndpoint(registry({}, { LLM_GATEWAY_URL: fake.url }));
  assert.equal(endpoint, { baseUrl: fake.url, runtimeUrl: true });
  const refused = await chat(new LlmGatewayClient({ ...endpoint, guard: new OutboundGuard(), attempts: 1 }));
  assert.match(refused?.message ?? '', /refused: it is a loopback/);
  assert.is(fake.requests.length, 0);
  const guard = new OutboundGuard(() => ['127.0.0.1']);
  assert.is(await chat(new LlmGatewayClient({ ...endpoint, guard, attempts: 1 })), undefined);
  assert.is(fake.chats().length, 1);
  await guard.close();
});

test('the built-in default URL is the operator’s: a loopback default takes the environment key unchecked', () => {
  assert.equal(llmGatewayEndpoint(registry({ LLM_GATEWAY_API_KEY: 'env-key' })), { baseUrl: 'http://127.0.0.1:54000', apiKey: 'env-key', runtimeUrl: false });
});

test.run();
