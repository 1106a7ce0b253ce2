import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, ROOT, startGateway, until, writeFixturePlugin, type TestGateway } from '../../../support/gateway.js';

/**
 * PUT /plugins/{id}/config checks keys as own properties of the settings schema, and checks
 * every written value against the schema even where the environment sets the field.
 */
const ENV_BASE_URL = 'https://env.faxpipe.example/v1';
let gw: TestGateway;

const put = (id: string, body: string | object) =>
  fetch(`${gw.url}/plugins/${id}/config`, { method: 'PUT', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } });
const storeFile = () => path.join(gw.dataDir, 'plugins.config.json');
const stored = () => (existsSync(storeFile()) ? readFileSync(storeFile(), 'utf8') : '');

test.before(async () => {
  gw = await startGateway({ RETRIEVAL_BACKEND: 'echo', FAXPIPE_BASE_URL: ENV_BASE_URL, FAXPIPE_API_TOKEN: 'env-token', MAX_FILE_SIZE_MB: '5' });
  writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  const faxpipe = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8'));
  writeFileSync(path.join(gw.pluginsDir, 'faxpipe.json'), JSON.stringify(faxpipe));
  await until(async () => (await json(await fetch(`${gw.url}/plugins/echo`))).state === 'active', 5000);
  await until(async () => (await fetch(`${gw.url}/plugins/${faxpipe.id}`)).status === 200, 5000);
});
test.after(async () => {
  await gw.close();
});

for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__']) {
  test(`a setting named "${key}" is unknown: 400 naming it, nothing stored`, async () => {
    const before = stored();
    // Raw text, so "__proto__" arrives as a key and not as a prototype.
    const res = await put('echo', `{"settings": {${JSON.stringify(key)}: "x"}}`);
    assert.is(res.status, 400);
    assert.ok((await json(res)).detail.includes(key));
    assert.is(stored(), before);
  });
}

for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
  test(`the gateway config refuses a key named "${key}" (POST /api/config, PUT /admin/settings)`, async () => {
    for (const [method, route, body] of [
      ['POST', '/api/config', `{${JSON.stringify(key)}: "x"}`],
      ['PUT', '/admin/settings', `{"settings": {${JSON.stringify(key)}: "x"}}`],
    ] as const) {
      const res = await fetch(`${gw.url}${route}`, { method, body, headers: { 'content-type': 'application/json' } });
      assert.ok(res.status === 400 || res.status === 422, `${method} ${route}: ${res.status}`);
      assert.ok((await json(res)).detail.includes(key), `${method} ${route} names ${key}`);
    }
    assert.not.ok(existsSync(path.join(gw.dataDir, 'config.json')) && readFileSync(path.join(gw.dataDir, 'config.json'), 'utf8').includes(key));
  });
}

test('a field set by the environment is still validated when written: a wrong type answers 400', async () => {
  const id = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8')).id as string;
  const before = stored();
  const bad = await put(id, { settings: { base_url: ['x'] } });
  assert.is(bad.status, 400);
  assert.match((await json(bad)).detail, /base_url/);
  assert.is(stored(), before);
});

test('a valid value for an environment field is stored, and the answer says the environment still wins', async () => {
  const id = JSON.parse(readFileSync(path.join(ROOT, 'registry/manifests/faxpipe-json.json'), 'utf8')).id as string;
  const res = await put(id, { settings: { base_url: 'https://stored.faxpipe.example/v1' } });
  const body = await json(res);
  assert.is(res.status, 200, JSON.stringify(body));
  assert.equal(body.env_overridden, ['base_url']);
  assert.is(body.sources.base_url, 'env');
  assert.is(body.settings.base_url, ENV_BASE_URL);
  assert.is(JSON.parse(stored())[id].settings.base_url, 'https://stored.faxpipe.example/v1');
});

test('a gateway config key set by the environment is validated when written, and reported as overridden', async () => {
  const post = (body: object) => fetch(`${gw.url}/api/config`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const bad = await post({ MAX_FILE_SIZE_MB: ['x'] });
  assert.ok(bad.status === 400 || bad.status === 422, String(bad.status));
  assert.match((await json(bad)).detail, /MAX_FILE_SIZE_MB/);
  const good = await json(await post({ MAX_FILE_SIZE_MB: 7 }));
  assert.equal(good.env_overridden, ['MAX_FILE_SIZE_MB']);
  assert.is(good.config.MAX_FILE_SIZE_MB, 5);
});

test.run();
