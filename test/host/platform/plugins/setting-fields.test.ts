import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, until, writeFixturePlugin, type TestGateway } from '../../../support/gateway.js';

// GET /plugins/{id}/config describes the settings schema's fields, so a client (the console)
// can generate the form: types, enum options, defaults, secret and env-only marks, env names.
let gw: TestGateway;

test.before(async () => {
  gw = await startGateway({});
});
test.after(async () => {
  await gw?.close();
});

test('the config view lists the fields of the settings schema in order', async () => {
  writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  await until(async () => (await json<{ plugins: { id: string; state: string }[] }>(await fetch(`${gw.url}/plugins`))).plugins.find((p) => p.id === 'echo')?.state === 'active', 30_000, 20);
  const view = await json<{ fields: Record<string, unknown>[] }>(await fetch(`${gw.url}/plugins/echo/config`));
  assert.equal(view.fields, [
    { name: 'greeting', type: 'string', required: false, secret: false, env_only: false, env: 'ECHO_GREETING', default: 'hello' },
    { name: 'token', type: 'string', required: false, secret: true, env_only: false, env: null },
    { name: 'failStart', type: 'enum', options: ['none', 'config', 'not-ready', 'crash'], required: false, secret: false, env_only: false, env: null, default: 'none' },
  ]);
});

test("a built-in plugin's secret field shows no default, and names the variable that overrides it", async () => {
  const view = await json<{ fields: Record<string, unknown>[] }>(await fetch(`${gw.url}/plugins/fax-sim/config`));
  const secret = view.fields.find((f) => f.secret === true);
  assert.ok(secret, 'fax-sim has a secret setting');
  assert.is(secret.default, undefined);
  assert.is(secret.env, 'FAX_SIM_SECRET');
  assert.is(view.fields.find((f) => f.name === 'gatewayUrl')?.env, 'PUBLIC_API_URL');
});

test.run();
