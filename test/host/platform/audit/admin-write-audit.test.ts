import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { json, postFax, startGateway, until, type TestGateway } from '../../../support/gateway.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { startProviderAFake, type ProviderAFake } from '../../../fakes/providera-fake.js';

// Values that must never appear in an audit record, whatever key carried them.
const SECRETS = ['basic-pass-value-7731', 'pbx-secret-value-8842', 'pa-secret-value-9953'];
let gw: TestGateway;
let fake: ProviderAFake;

const send = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function records(event: string): Promise<Array<Record<string, unknown>>> {
  return (await json(await fetch(`${gw.url}/admin/logs?event=${event}&limit=50`))).records;
}

async function assertNoSecret(): Promise<void> {
  const all = JSON.stringify((await json(await fetch(`${gw.url}/admin/logs?limit=1000`))).records);
  for (const secret of SECRETS) assert.not.ok(all.includes(secret), `an audit record holds the value ${secret}`);
}

test.before(async () => {
  fake = await startProviderAFake({ apiKey: 'a-key', apiSecret: 'a-secret-value' });
  gw = await startGateway(
    { AUDIT_LOG_ENABLED: 'true', FAX_BACKEND: 'providera', PROVIDERA_BASE_URL: fake.baseUrl, PROVIDERA_API_KEY: 'a-key', PROVIDERA_API_SECRET: 'a-secret-value' },
    { watch: false },
  );
});
test.after(async () => {
  await gw.close();
  await fake.close();
});

test('POST /api/config is audited with the key names it wrote, never their values', async () => {
  const res = await send('POST', '/api/config', { MCP_API_KEY: SECRETS[0], FAX_PAPER_SIZE: 'a4' });
  assert.is(res.status, 200, await res.text());
  const [record] = await records('config_changed');
  assert.ok(record, 'no config_changed record');
  assert.is(record!.keys, 'FAX_PAPER_SIZE MCP_API_KEY');
  assert.is(record!.by, 'local');
  await assertNoSecret();
});

test('PUT /admin/settings is audited with the key names, a write that changes nothing too', async () => {
  let res = await send('PUT', '/admin/settings', { settings: { LLM_GATEWAY_API_KEY: SECRETS[1] } });
  assert.is(res.status, 200, await res.text());
  res = await send('PUT', '/admin/settings', { settings: { LLM_GATEWAY_API_KEY: SECRETS[1] } });
  assert.is(res.status, 200, await res.text());
  const found = await records('settings_changed');
  assert.is(found.length, 2);
  assert.ok(found.every((r) => r.keys === 'LLM_GATEWAY_API_KEY'), JSON.stringify(found));
  await assertNoSecret();
});

test('disabling and enabling a plugin, and storing its settings, are audited by key name', async () => {
  let res = await send('PUT', '/plugins/providera/config', { enabled: false, settings: { apiSecret: SECRETS[2] } });
  assert.is(res.status, 200, await res.text());
  res = await send('PUT', '/plugins/providera/config', { enabled: true });
  assert.is(res.status, 200, await res.text());
  const changes = await records('plugin_config_changed');
  assert.equal(
    changes.map((r) => [r.plugin, r.keys]),
    [
      ['providera', 'enabled'],
      ['providera', 'enabled settings.apiSecret'],
    ],
  );
  assert.is((await records('plugin_disabled')).length, 1);
  assert.is((await records('plugin_enabled')).length, 1);
  assert.is((await records('plugin_enabled'))[0]!.plugin, 'providera');
  await assertNoSecret();
});

test('an admin refresh of a job is audited', async () => {
  await until(async () => (await json(await fetch(`${gw.url}/plugins/providera`))).state === 'active', 10_000);
  const posted = await postFax(gw.url, '+15551234567', await makePdf(1));
  const job = await json(posted);
  assert.is(posted.status, 202, JSON.stringify(job));
  await until(async () => !!(await json(await fetch(`${gw.url}/fax/${job.id}`))).provider_sid, 10_000);
  const res = await fetch(`${gw.url}/admin/fax-jobs/${job.id}/refresh`, { method: 'POST' });
  assert.is(res.status, 200, await res.text());
  const [record] = await records('job_refresh_requested');
  assert.is(record?.job_id, job.id);
  assert.is(record?.by, 'local');
});

test('registry install and uninstall are audited', async () => {
  const installed = await fetch(`${gw.url}/plugin-registry/keyfax/install`, { method: 'POST' });
  assert.is(installed.status, 201, await installed.text());
  const removed = await fetch(`${gw.url}/plugin-registry/keyfax`, { method: 'DELETE' });
  assert.is(removed.status, 200, await removed.text());
  const [install] = await records('plugin_installed');
  const [uninstall] = await records('plugin_uninstalled');
  assert.is(install?.plugin, 'keyfax');
  assert.is(install?.by, 'local');
  assert.is(uninstall?.plugin, 'keyfax');
});

test.run();
