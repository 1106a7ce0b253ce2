import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { json, startGateway, until, writeFixturePlugin, type TestGateway } from '../../../support/gateway.js';

const SECRET = 'tok-7f3a-very-secret-value';
let gw: TestGateway;

const call = (method: string, p: string, body?: unknown) =>
  fetch(`${gw.url}${p}`, { method, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
const plugin = async (id: string) => json(await call('GET', `/plugins/${id}`));

test.before(async () => {
  gw = await startGateway({ RETRIEVAL_BACKEND: 'echo', PLUGIN_START_TIMEOUT_MS: '2000' });
  writeFixturePlugin(gw.pluginsDir, 'echo', 'echo-retrieval');
  await until(async () => (await plugin('echo')).state === 'active', 3000);
});
test.after(async () => {
  await gw.close();
});

test('GET /plugins/{id}/config shows enabled, settings, sources; 404 for an unknown plugin', async () => {
  const cfg = await json(await call('GET', '/plugins/echo/config'));
  assert.is(cfg.enabled, true);
  assert.is(cfg.settings.greeting, 'hello');
  assert.is(cfg.sources.greeting, 'default');
  assert.equal(cfg.secrets, { token: { set: false } });
  assert.is(cfg.settings.token, null);
  assert.is((await call('GET', '/plugins/nope/config')).status, 404);
  assert.is((await call('GET', '/plugins/NOT..valid/config')).status, 400);
});

test('PUT applies live on a new generation; a secret is write-only and the mask keeps it', async () => {
  const before = (await plugin('echo')).generation;
  const res = await call('PUT', '/plugins/echo/config', { settings: { greeting: 'bonjour', token: SECRET } });
  assert.is(res.status, 200);
  const body = await json(res);
  assert.is(body.settings.token, '***');
  assert.equal(body.secrets.token, { set: true });
  assert.is(body.plugin.generation, before + 1);
  const search = await json(await call('GET', '/api/search?q=x&top_k=1'));
  assert.is(search.results[0].snippet, `bonjour from generation ${before + 1}`);
  // Sending the mask back means unchanged; the stored file still has the real secret.
  await call('PUT', '/plugins/echo/config', { settings: { greeting: 'hola', token: '***' } });
  const stored = JSON.parse(readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8'));
  assert.is(stored.echo.settings.token, SECRET);
  assert.is(stored.echo.settings.greeting, 'hola');
});

test('PUT with a bad field answers 400 naming it and stores nothing', async () => {
  const storedBefore = readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8');
  const bad = await call('PUT', '/plugins/echo/config', { settings: { failStart: 'sometimes' } });
  assert.is(bad.status, 400);
  assert.match((await json(bad)).detail, /failStart/);
  const unknown = await call('PUT', '/plugins/echo/config', { settings: { colour: 'blue' } });
  assert.is(unknown.status, 400);
  assert.match((await json(unknown)).detail, /colour/);
  assert.is((await call('PUT', '/plugins/echo/config', { settings: 'nope' })).status, 400);
  assert.is((await call('PUT', '/plugins/echo/config', '{not json')).status, 400);
  assert.is((await call('PUT', '/plugins/echo/config', { extra: true })).status, 400);
  assert.is(readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8'), storedBefore);
});

test('an environment-only setting (sip spoolDir) is refused over HTTP and nothing is stored', async () => {
  for (const spoolDir of ['/', '/etc', 'relative/dir']) {
    const res = await call('PUT', '/plugins/sip/config', { settings: { spoolDir } });
    assert.is(res.status, 400, spoolDir);
    assert.match((await json(res)).detail, /spoolDir.*environment variable PBX_SPOOL_DIR/);
  }
  const stored = JSON.parse(readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8'));
  assert.is(stored.sip?.settings?.spoolDir, undefined);
  // the secret next to it is an ordinary (write-only) setting
  assert.is((await call('PUT', '/plugins/sip/config', { settings: { username: 'ami', password: 'ami-pass', inboundSecret: 'pbx-secret-x1' } })).status, 200);
});

test('POST /plugins/{id}/config/test runs the health check on candidate settings without saving', async () => {
  const storedBefore = readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8');
  const generation = (await plugin('echo')).generation;
  const ok = await json(await call('POST', '/plugins/echo/config/test', { settings: { greeting: 'candidate' } }));
  assert.is(ok.ok, true);
  assert.is(ok.checked, 'connection');
  const failing = await json(await call('POST', '/plugins/echo/config/test', { settings: { failStart: 'config' } }));
  assert.is(failing.ok, false);
  assert.is(failing.state, 'needs-config');
  assert.match(failing.detail, /greeting rejected/);
  assert.is(readFileSync(path.join(gw.dataDir, 'plugins.config.json'), 'utf8'), storedBefore, 'nothing saved');
  assert.is((await plugin('echo')).generation, generation, 'the serving generation is untouched');
});

test('config/test of a provider host that does not exist is not ok; settings it cannot probe say only their shape was checked', async () => {
  const unreachable = await json(await call('POST', '/plugins/providera/config/test', { settings: { baseUrl: 'https://fax.host-that-does-not-exist.invalid/v2', apiKey: 'k-1', apiSecret: 's-1' } }));
  assert.is(unreachable.ok, false, JSON.stringify(unreachable));
  assert.is(unreachable.checked, 'connection');
  const inboundOnly = await json(await call('POST', '/plugins/providera/config/test', { settings: { baseUrl: 'https://fax.host-that-does-not-exist.invalid/v2', apiSecret: 's-1' } }));
  assert.is(inboundOnly.ok, true, JSON.stringify(inboundOnly));
  assert.is(inboundOnly.checked, 'shape');
  assert.match(inboundOnly.detail, /provider was not contacted/);
});

test('typed start errors choose the state: needs-config, retrying with backoff, failed; a fix recovers', async () => {
  writeFixturePlugin(gw.pluginsDir, 'echo2', 'echo-retrieval');
  await until(async () => (await plugin('echo2')).state === 'active', 3000);
  await call('PUT', '/plugins/echo2/config', { enabled: false });
  assert.is((await plugin('echo2')).state, 'stopped');
  await call('PUT', '/plugins/echo2/config', { enabled: true, settings: { failStart: 'config' } });
  let p = await plugin('echo2');
  assert.is(p.state, 'needs-config');
  assert.match(p.last_error, /greeting rejected/);
  await call('PUT', '/plugins/echo2/config', { settings: { failStart: 'crash' } });
  assert.is((await plugin('echo2')).state, 'failed');
  await call('PUT', '/plugins/echo2/config', { settings: { failStart: 'not-ready' } });
  assert.is((await plugin('echo2')).state, 'retrying');
  await call('PUT', '/plugins/echo2/config', { settings: { failStart: 'none' } });
  p = await until(async () => {
    const v = await plugin('echo2');
    return v.state === 'active' ? v : undefined;
  }, 3000);
  assert.is(p.last_error, null);
});

test('editing the config store file by hand reloads the plugin', async () => {
  const file = path.join(gw.dataDir, 'plugins.config.json');
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  const generation = (await plugin('echo')).generation;
  stored.echo.settings.greeting = 'edited by hand';
  writeFileSync(`${file}.partial`, JSON.stringify(stored));
  renameSync(`${file}.partial`, file);
  await until(async () => (await plugin('echo')).generation === generation + 1, 2000, 20);
  const search = await json(await call('GET', '/api/search?q=x&top_k=1'));
  assert.match(search.results[0].snippet, /^edited by hand/);
});

test('a secret setting never appears in any response or log line', async () => {
  const bodies = await Promise.all(['/plugins', '/plugins/echo', '/plugins/echo/config', '/api/config', '/health/ready', '/metrics', '/openapi.json'].map(async (p) => (await call('GET', p)).text()));
  for (const body of bodies) assert.not.ok(body.includes(SECRET), 'secret in a response');
  assert.ok(gw.logs.some((l) => l.includes('started with token ***')), 'the plugin logged its token, masked');
  for (const line of gw.logs) assert.not.ok(line.includes(SECRET), `secret in a log line: ${line.slice(0, 120)}`);
});

test.run();
