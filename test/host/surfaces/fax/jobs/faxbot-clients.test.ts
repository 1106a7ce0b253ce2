import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, startGateway, type TestGateway } from '../../../../support/gateway.js';

// Faxbot's Node and Python SDKs and its admin console, call by call as they send them:
// X-API-Key header, JSON bodies, the list read from `items`.
const KEY = 'faxbot-admin-key-4e2d77a1';
let gw: TestGateway;

const faxbot = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, {
    method,
    headers: { 'X-API-Key': KEY, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

test.before(async () => {
  gw = await startGateway({ API_KEY: KEY }, { watch: false });
});
test.after(async () => {
  await gw.close();
});

test('GET /plugins: the clients read the list from items (our plugins list beside it)', async () => {
  const res = await faxbot('GET', '/plugins');
  const body = await json(res);
  assert.is(res.status, 200);
  assert.ok(Array.isArray(body.items));
  assert.ok(body.items.some((p: { id: string }) => p.id === 'providera'));
  assert.equal(body.items, body.plugins);
});

test('GET /plugin-registry: the clients read the catalogue from items', async () => {
  const res = await faxbot('GET', '/plugin-registry');
  const body = await json(res);
  assert.is(res.status, 200);
  assert.ok(body.items.some((p: { id: string }) => p.id === 'keyfax'));
  assert.equal(body.items, body.plugins);
});

test('PUT /plugins/{id}/config answers {"ok": true, "path": <store path>} beside our fields', async () => {
  const res = await faxbot('PUT', '/plugins/providera/config', { enabled: true, settings: { apiKey: 'faxbot-ak', apiSecret: 'faxbot-as' } });
  const body = await json(res);
  assert.is(res.status, 200, JSON.stringify(body));
  assert.is(body.ok, true);
  assert.is(body.path, `${gw.dataDir}/plugins.config.json`);
  assert.is(body.id, 'providera');
  assert.is(body.settings.apiSecret, '***');
});

test('POST /plugins/install with {"plugin_id"} installs from the registry', async () => {
  const res = await faxbot('POST', '/plugins/install', { plugin_id: 'keyfax' });
  const body = await json(res);
  assert.is(res.status, 201, JSON.stringify(body));
  assert.is(body.ok, true);
  assert.is(body.id, 'keyfax');
  const listed = await json(await faxbot('GET', '/plugins'));
  assert.ok(listed.items.some((p: { id: string }) => p.id === 'keyfax'));
  const again = await faxbot('POST', '/plugins/install', { plugin_id: 'keyfax' });
  assert.is(again.status, 409);
  const unknown = await faxbot('POST', '/plugins/install', { plugin_id: 'no-such-plugin' });
  assert.is(unknown.status, 404);
  const malformed = await faxbot('POST', '/plugins/install', { plugin: 'keyfax' });
  assert.is(malformed.status, 400);
  assert.type((await json(malformed)).detail, 'string');
});

test.run();
