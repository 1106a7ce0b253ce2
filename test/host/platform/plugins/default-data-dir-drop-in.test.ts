import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createGateway, type SwitchboardGateway } from '../../../../host/surfaces/gateway.js';
import { json, ROOT, until } from '../../../support/gateway.js';
import { writePluginFolder } from '../../../support/plugin-folder.js';

// `npm start` in the checkout: DATA_DIR unset, so ./data of the working folder, inside the host
// package. A temp working folder under the checkout's (git-ignored) data/ stands for it.
const cwd = (mkdirSync(path.join(ROOT, 'data'), { recursive: true }), mkdtempSync(path.join(ROOT, 'data', 'drop-in-')));
const pluginsPath = path.join(cwd, 'plugins');
let gateway: SwitchboardGateway;
let url: string;
const logs: string[] = [];

/** A folder as `switchboard plugins new` writes it: its own package.json, no switchboard installed. */
function dropPlugin(dir: string, id: string): void {
  const folder = writePluginFolder(dir, id);
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: id, version: '1.0.0', type: 'module', private: true }));
}

test.before(async () => {
  dropPlugin(path.join(cwd, 'data', 'manifests'), 'acme-store');
  dropPlugin(pluginsPath, 'acme-path');
  const env = { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ENV_FILE: path.join(cwd, 'no.env'), PLUGINS_PATH: pluginsPath };
  const destination = new Writable({ write(chunk, _enc, cb) { logs.push(String(chunk)); cb(); } });
  gateway = await createGateway({ env, cwd, logDestination: destination, watch: false });
  url = `http://127.0.0.1:${(await gateway.listen(0, '127.0.0.1')).port}`;
});
test.after(async () => {
  await gateway?.close();
  rmSync(cwd, { recursive: true, force: true });
});

for (const id of ['acme-store', 'acme-path']) {
  test(`a code plugin inside the checkout (${id}) gets the host's switchboard/sdk and starts`, async () => {
    const view = await until(async () => {
      const p = (await json(await fetch(`${url}/plugins`))).plugins.find((x: { id: string }) => x.id === id);
      return p && p.state !== 'discovered' && p.state !== 'validated' && p.state !== 'starting' ? p : undefined;
    }, 20_000);
    assert.is(view.state, 'active', `${view.last_error} ${logs.slice(-5).join('')}`);
    assert.ok(view.manifest_path.startsWith(ROOT), 'the plugin lives inside the host package');
    const sdk = (globalThis as { __switchboardSdkOf?: Record<string, unknown> }).__switchboardSdkOf?.[id];
    assert.is(sdk && (sdk as { definePlugin: unknown }).definePlugin, (await import('switchboard/sdk')).definePlugin, "the host's one SDK instance");
  });
}

test.run();
