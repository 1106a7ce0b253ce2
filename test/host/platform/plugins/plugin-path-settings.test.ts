import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startGateway, json, until, type TestGateway } from '../../../support/gateway.js';

const outside = mkdtempSync(path.join(tmpdir(), 'switchboard-outside-'));
let gw: TestGateway;
test.before(async () => {
  gw = await startGateway();
  symlinkSync(outside, path.join(gw.dataDir, 'escape'));
});
test.after(async () => {
  await gw?.close();
  rmSync(outside, { recursive: true, force: true });
});

const put = (id: string, settings: Record<string, unknown>) =>
  fetch(`${gw.url}/plugins/${id}/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings }) });

test('a plugin path setting outside DATA_DIR is refused at the config write (absolute, `..`, a symbolic link), and nothing is created there', async () => {
  for (const [id, field] of [['storage-local', 'root'], ['retrieval-sqlite', 'dir']] as const) {
    for (const value of ['/', outside, '../../escaped', 'escape/idx']) {
      const res = await put(id, { [field]: value });
      assert.is(res.status, 400, `${id}.${field} = ${value}`);
      const body = await json(res);
      assert.is(body.code, 'validation_error');
      assert.match(body.detail, new RegExp(`setting "${field}".*(outside DATA_DIR|symbolic link)`));
    }
    assert.is((await json(await fetch(`${gw.url}/plugins/${id}`))).state, 'active', `${id} keeps serving with its stored settings`);
  }
  assert.not.ok(existsSync(path.join(outside, 'idx')));
  assert.not.ok(existsSync(path.resolve(gw.dataDir, '../../escaped')));
});

test('a path from the environment outside DATA_DIR puts the plugin in needs-config with the reason; PLUGIN_PATHS_ALLOW lifts it', async () => {
  const escaped = await startGateway({ RETRIEVAL_SQLITE_DIR: outside });
  try {
    const view = async () => json(await fetch(`${escaped.url}/plugins/retrieval-sqlite`));
    await until(async () => (await view()).state === 'needs-config');
    assert.match((await view()).last_error, /setting "dir".*outside DATA_DIR.*PLUGIN_PATHS_ALLOW/);
  } finally {
    await escaped.close();
  }
  const allowed = await startGateway({ RETRIEVAL_SQLITE_DIR: path.join(outside, 'index'), PLUGIN_PATHS_ALLOW: outside });
  try {
    await until(async () => (await json(await fetch(`${allowed.url}/plugins/retrieval-sqlite`))).state === 'active');
  } finally {
    await allowed.close();
  }
});

test('PLUGIN_PATHS_ALLOW cannot be set over the API', async () => {
  const res = await fetch(`${gw.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ PLUGIN_PATHS_ALLOW: '/' }) });
  assert.is(res.status, 422);
  assert.match((await json(res)).detail, /PLUGIN_PATHS_ALLOW: can only be set in the environment/);
});

test.run();
