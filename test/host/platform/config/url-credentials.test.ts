import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startGateway, json, type TestGateway } from '../../../support/gateway.js';
import { maskUrlCredentials } from '../../../../core/config/url-credentials.js';
import { gatewayConfig } from '../../../support/gateway-config.js';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ AUDIT_LOG_ENABLED: 'true' });
});
test.after(async () => {
  await gw?.close();
});

const send = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

const URL_WITH_CREDENTIALS = 'https://judge-user:pa55word-xyz@judge.example.com/base';

test('credentials inside a URL setting never show: /api/config, /admin/settings, the export, the plugin config view, the logs', async () => {
  assert.is((await send('POST', '/api/config', { system_one: { hosted_url: URL_WITH_CREDENTIALS } })).status, 200);
  const api = await json(await send('GET', '/api/config'));
  assert.is(api.config['system_one.hosted_url'], 'https://***@judge.example.com/base');
  const admin = await json(await send('GET', '/admin/settings'));
  assert.is(admin.config['system_one.hosted_url'], 'https://***@judge.example.com/base');
  const exported = await (await send('GET', '/admin/settings/export')).text();
  assert.match(exported, /SYSTEM_ONE__HOSTED_URL=https:\/\/\*\*\*@judge.example.com\/base/);
  const put = await send('PUT', '/plugins/judge-hosted/config', { settings: { hosted_url: URL_WITH_CREDENTIALS } });
  assert.is(put.status, 200);
  const view = await json(await send('GET', '/plugins/judge-hosted/config'));
  assert.is(view.settings.hosted_url, 'https://***@judge.example.com/base');
  // Sent back as shown, the plugin keeps its stored credentials.
  assert.is((await send('PUT', '/plugins/judge-hosted/config', { settings: { hosted_url: view.settings.hosted_url } })).status, 200);
  assert.match(readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8'), /pa55word-xyz/);
  for (const body of [JSON.stringify(api), JSON.stringify(admin), exported, JSON.stringify(await json(put)), JSON.stringify(view), gw.logs.join('\n')]) assert.not.match(body, /pa55word-xyz|judge-user/);
  await send('PUT', '/plugins/judge-hosted/config', { settings: { hosted_url: null } });
});

test('sending the shown (masked) URL back keeps the stored credentials; a new URL replaces them', async () => {
  assert.is((await send('POST', '/api/config', { system_one: { hosted_url: 'https://***@judge.example.com/base' } })).status, 200);
  assert.is(gatewayConfig(gw.gateway.config).get('system_one.hosted_url'), URL_WITH_CREDENTIALS);
  assert.is((await send('POST', '/api/config', { system_one: { hosted_url: 'https://judge.example.com/other' } })).status, 200);
  assert.is(gatewayConfig(gw.gateway.config).get('system_one.hosted_url'), 'https://judge.example.com/other');
  await send('POST', '/api/config', { system_one: { hosted_url: null } });
});

test('every URL in a text is masked, and only its userinfo', () => {
  assert.is(maskUrlCredentials('a http://u:p@h:1/x?y=z@w and redis://:tok@r/0, mailto:x@y'), 'a http://***@h:1/x?y=z@w and redis://***@r/0, mailto:x@y');
  assert.is(maskUrlCredentials('https://plain.example/path@at'), 'https://plain.example/path@at');
});

test.run();
